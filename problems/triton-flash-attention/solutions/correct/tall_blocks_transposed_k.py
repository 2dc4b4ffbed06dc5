# expect: accepted
# Tall query blocks of 128 against narrow key blocks of 16, heads on grid axis 0 and query blocks on axis 1, K
# loaded as rows (BLOCK_N, d) like V and transposed in registers with tl.trans. K and V are read once per 128
# queries. The causal loop stops at the diagonal.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def tall_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, scale, heads, t,
                sqb, sqh, sqt, sqd, skb, skh, skt, skd, svb, svh, svt, svd, sob, soh, sot, sod, slb, slh, slt,
                CAUSAL: tl.constexpr, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0) // heads
    h = tl.program_id(0) % heads
    start_m = tl.program_id(1) * BLOCK_M
    rows = start_m + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, D)
    q = tl.load(q_ptr + b * sqb + h * sqh + rows[:, None] * sqt + dims[None, :] * sqd, mask=rows[:, None] < t,
                other=0.0)
    m = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    end = tl.minimum(start_m + BLOCK_M, t) if CAUSAL else t
    start_n = 0
    while start_n < end:
        keys = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + b * skb + h * skh + keys[:, None] * skt + dims[None, :] * skd, mask=keys[:, None] < t,
                    other=0.0)
        v = tl.load(v_ptr + b * svb + h * svh + keys[:, None] * svt + dims[None, :] * svd, mask=keys[:, None] < t,
                    other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        valid = keys[None, :] < t
        if CAUSAL:
            valid = valid & (keys[None, :] <= rows[:, None])
        s = tl.where(valid, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp(m - m_new)
        p = tl.exp(s - m_new[:, None])
        l = l * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m = m_new
        start_n += BLOCK_N
    tl.store(o_ptr + b * sob + h * soh + rows[:, None] * sot + dims[None, :] * sod,
             (acc / l[:, None]).to(o_ptr.dtype.element_ty), mask=rows[:, None] < t)
    tl.store(lse_ptr + b * slb + h * slh + rows * slt, m + tl.log(l), mask=rows < t)


def flash_attention(q, k, v, causal=False, scale=None):
    batch, heads, t, d = q.shape
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    o = q.new_empty((batch, heads, t, d))
    lse = q.new_empty((batch, heads, t), dtype=torch.float32)
    tall_kernel[(batch * heads, triton.cdiv(t, 128))](
        q, k, v, o, lse, scale, heads, t, *q.stride(), *k.stride(), *v.stride(), *o.stride(), *lse.stride(),
        CAUSAL=causal, D=d, BLOCK_M=128, BLOCK_N=16)
    return o, lse
