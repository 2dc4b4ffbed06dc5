# expect: accepted
# BLOCK_M = 32 queries against BLOCK_N = 64 keys, the exponentials in base 2 (exp2 of scores pre-multiplied by
# log2(e), what the GPU's ex2 instruction computes), and the causal mask applied to every key block rather than
# skipping those above the diagonal: more work, the same loads bound. lse goes back to base e before the store.
import math

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def fwd(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, qk_scale, heads, t,
        sqb, sqh, sqt, sqd, skb, skh, skt, skd, svb, svh, svt, svd, sob, soh, sot, sod, slb, slh, slt,
        CAUSAL: tl.constexpr, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    bh = tl.program_id(1)
    b = bh // heads
    h = bh % heads
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, D)
    q = tl.load(q_ptr + b * sqb + h * sqh + rows[:, None] * sqt + dims[None, :] * sqd, mask=rows[:, None] < t,
                other=0.0)
    m2 = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    for start_n in range(0, t, BLOCK_N):
        keys = start_n + tl.arange(0, BLOCK_N)
        kt = tl.load(k_ptr + b * skb + h * skh + keys[None, :] * skt + dims[:, None] * skd, mask=keys[None, :] < t,
                     other=0.0)
        v = tl.load(v_ptr + b * svb + h * svh + keys[:, None] * svt + dims[None, :] * svd, mask=keys[:, None] < t,
                    other=0.0)
        s2 = tl.dot(q, kt) * qk_scale  # scores times log2(e)
        valid = keys[None, :] < t
        if CAUSAL:
            valid = valid & (keys[None, :] <= rows[:, None])
        s2 = tl.where(valid, s2, float("-inf"))
        m2_new = tl.maximum(m2, tl.max(s2, axis=1))
        alpha = tl.exp2(m2 - m2_new)
        p = tl.exp2(s2 - m2_new[:, None])
        l = l * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m2 = m2_new
    o = acc / l[:, None]
    tl.store(o_ptr + b * sob + h * soh + rows[:, None] * sot + dims[None, :] * sod, o.to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < t)
    tl.store(lse_ptr + b * slb + h * slh + rows * slt, (m2 + tl.log2(l)) * 0.6931471805599453, mask=rows < t)


def flash_attention(q, k, v, causal=False, scale=None):
    batch, heads, t, d = q.shape
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    o = torch.empty_like(q)
    lse = q.new_empty((batch, heads, t), dtype=torch.float32)
    grid = (triton.cdiv(t, 32), batch * heads)
    fwd[grid](q, k, v, o, lse, scale * LOG2E, heads, t, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
              *lse.stride(), CAUSAL=causal, D=d, BLOCK_M=32, BLOCK_N=64)
    return o, lse
