# expect: wrong_answer
# message: stored to global memory
# The textbook three steps as two careful kernels: the first writes S = q kᵀ · scale for 64 queries at a time to a
# (B·H, T, T) float32 scratch buffer (q read once, K once per 64 queries), the second reads each row of S back,
# takes its softmax and multiplies by V. Its loads stay within the bound; its stores do not: B·H·T² × 4 bytes of
# S beyond o and lse, written and read back, the very traffic FlashAttention exists to remove.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def scores_kernel(q_ptr, k_ptr, s_ptr, scale, heads, t, sqb, sqh, sqt, sqd, skb, skh, skt, skd,
                  D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    b, h = tl.program_id(1) // heads, tl.program_id(1) % heads
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, D)
    q = tl.load(q_ptr + b * sqb + h * sqh + rows[:, None] * sqt + dims[None, :] * sqd, mask=rows[:, None] < t,
                other=0.0)
    for start_n in range(0, t, BLOCK_N):
        keys = start_n + tl.arange(0, BLOCK_N)
        kt = tl.load(k_ptr + b * skb + h * skh + keys[None, :] * skt + dims[:, None] * skd, mask=keys[None, :] < t,
                     other=0.0)
        tl.store(s_ptr + tl.program_id(1) * t * t + rows[:, None] * t + keys[None, :], tl.dot(q, kt) * scale,
                 mask=(rows[:, None] < t) & (keys[None, :] < t))


@triton.jit
def softmax_pv_kernel(s_ptr, v_ptr, o_ptr, lse_ptr, heads, t, svb, svh, svt, svd, sob, soh, sot, sod, slb, slh, slt,
                      CAUSAL: tl.constexpr, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_T: tl.constexpr):
    b, h = tl.program_id(1) // heads, tl.program_id(1) % heads
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    keys = tl.arange(0, BLOCK_T)
    dims = tl.arange(0, D)
    s = tl.load(s_ptr + tl.program_id(1) * t * t + rows[:, None] * t + keys[None, :],
                mask=(rows[:, None] < t) & (keys[None, :] < t), other=0.0)
    valid = keys[None, :] < t
    if CAUSAL:
        valid = valid & (keys[None, :] <= rows[:, None])
    s = tl.where(valid, s, float("-inf"))
    m = tl.max(s, 1)
    p = tl.exp(s - m[:, None])
    l = tl.sum(p, 1)
    v = tl.load(v_ptr + b * svb + h * svh + keys[:, None] * svt + dims[None, :] * svd, mask=keys[:, None] < t,
                other=0.0)
    o = tl.dot(p.to(v.dtype), v) / l[:, None]
    tl.store(o_ptr + b * sob + h * soh + rows[:, None] * sot + dims[None, :] * sod, o.to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < t)
    tl.store(lse_ptr + b * slb + h * slh + rows * slt, m + tl.log(l), mask=rows < t)


def flash_attention(q, k, v, causal=False, scale=None):
    batch, heads, t, d = q.shape
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    scores = torch.empty((batch * heads, t, t), dtype=torch.float32)
    o = torch.empty((batch, heads, t, d), dtype=q.dtype)
    lse = torch.empty((batch, heads, t), dtype=torch.float32)
    grid = (triton.cdiv(t, 64), batch * heads)
    scores_kernel[grid](q, k, scores, scale, heads, t, *q.stride(), *k.stride(), D=d, BLOCK_M=64, BLOCK_N=64)
    softmax_pv_kernel[grid](scores, v, o, lse, heads, t, *v.stride(), *o.stride(), *lse.stride(), CAUSAL=causal,
                            D=d, BLOCK_M=64, BLOCK_T=max(16, triton.next_power_of_2(t)))
    return o, lse
