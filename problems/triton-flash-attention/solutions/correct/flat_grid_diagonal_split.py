# expect: accepted
# A 1-D grid of B·H·⌈T/32⌉ programs, each finding its head and query block by division, and a causal loop in
# two stages as in Triton's tutorial: the key blocks wholly below the diagonal with no causal mask, then the
# diagonal block with it. BLOCK_M = BLOCK_N = 32, so exactly one key block straddles the diagonal.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _block(acc, l, m, q, k_base, v_base, rows, start_n, t, scale, skt, skd, svt, svd,
           DIAGONAL: tl.constexpr, D: tl.constexpr, BLOCK_N: tl.constexpr):
    keys = start_n + tl.arange(0, BLOCK_N)
    dims = tl.arange(0, D)
    kt = tl.load(k_base + keys[None, :] * skt + dims[:, None] * skd, mask=keys[None, :] < t, other=0.0)
    s = tl.dot(q, kt) * scale
    valid = keys[None, :] < t
    if DIAGONAL:
        valid = valid & (keys[None, :] <= rows[:, None])
    s = tl.where(valid, s, float("-inf"))
    m_new = tl.maximum(m, tl.max(s, axis=1))
    alpha = tl.exp(m - m_new)
    p = tl.exp(s - m_new[:, None])
    v = tl.load(v_base + keys[:, None] * svt + dims[None, :] * svd, mask=keys[:, None] < t, other=0.0)
    return acc * alpha[:, None] + tl.dot(p.to(v.dtype), v), l * alpha + tl.sum(p, axis=1), m_new


@triton.jit
def flat_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, scale, heads, t, m_blocks,
                sqb, sqh, sqt, sqd, skb, skh, skt, skd, svb, svh, svt, svd, sob, soh, sot, sod, slb, slh, slt,
                CAUSAL: tl.constexpr, D: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    block_m = pid % m_blocks
    bh = pid // m_blocks
    b = bh // heads
    h = bh % heads
    rows = block_m * BLOCK + tl.arange(0, BLOCK)
    dims = tl.arange(0, D)
    q = tl.load(q_ptr + b * sqb + h * sqh + rows[:, None] * sqt + dims[None, :] * sqd, mask=rows[:, None] < t,
                other=0.0)
    k_base = k_ptr + b * skb + h * skh
    v_base = v_ptr + b * svb + h * svh
    acc = tl.zeros([BLOCK, D], dtype=tl.float32)
    l = tl.zeros([BLOCK], dtype=tl.float32)
    m = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    if CAUSAL:
        for start_n in range(0, block_m * BLOCK, BLOCK):
            acc, l, m = _block(acc, l, m, q, k_base, v_base, rows, start_n, t, scale, skt, skd, svt, svd,
                               False, D, BLOCK)
        acc, l, m = _block(acc, l, m, q, k_base, v_base, rows, block_m * BLOCK, t, scale, skt, skd, svt, svd,
                           True, D, BLOCK)
    else:
        for start_n in range(0, t, BLOCK):
            acc, l, m = _block(acc, l, m, q, k_base, v_base, rows, start_n, t, scale, skt, skd, svt, svd,
                               False, D, BLOCK)
    tl.store(o_ptr + b * sob + h * soh + rows[:, None] * sot + dims[None, :] * sod,
             (acc / l[:, None]).to(o_ptr.dtype.element_ty), mask=rows[:, None] < t)
    tl.store(lse_ptr + b * slb + h * slh + rows * slt, m + tl.log(l), mask=rows < t)


def flash_attention(q, k, v, causal=False, scale=None):
    batch, heads, t, d = q.shape
    scale = d ** -0.5 if scale is None else scale
    o = torch.empty_like(q)
    lse = torch.empty((batch, heads, t), dtype=torch.float32, device=q.device)
    m_blocks = triton.cdiv(t, 32)
    flat_kernel[(batch * heads * m_blocks,)](q, k, v, o, lse, scale, heads, t, m_blocks, *q.stride(), *k.stride(),
                                             *v.stride(), *o.stride(), *lse.stride(), CAUSAL=causal, D=d, BLOCK=32)
    return o, lse
