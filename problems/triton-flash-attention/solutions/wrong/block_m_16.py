# expect: wrong_answer
# message: over this test's bound
# Right values, but blocks of 16 queries: every program streams all of K and V, so they are read ⌈T/16⌉ times,
# twice what blocks of 32 need. The work a query block shares is what makes FlashAttention IO-aware.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, scale, heads, t,
                     sqb, sqh, sqt, sqd, skb, skh, skt, skd, svb, svh, svt, svd,
                     sob, soh, sot, sod, slb, slh, slt,
                     CAUSAL: tl.constexpr, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One program per (query block, batch × head): it reads its BLOCK_M queries once, streams every key block
    # past them, and writes its rows of o and lse once. No T × T matrix ever reaches global memory.
    start_m = tl.program_id(0) * BLOCK_M
    b, h = tl.program_id(1) // heads, tl.program_id(1) % heads
    rows = start_m + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, D)
    q = tl.load(q_ptr + b * sqb + h * sqh + rows[:, None] * sqt + dims[None, :] * sqd, mask=rows[:, None] < t,
                other=0.0)
    k_base = k_ptr + b * skb + h * skh
    v_base = v_ptr + b * svb + h * svh
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)   # running maximum of each row's scores
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)                 # running sum of exp(s - m_i)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)              # running sum of exp(s - m_i) v
    # Causal: key blocks that start after this query block's last row hold only masked keys; skip them.
    end = tl.minimum(start_m + BLOCK_M, t) if CAUSAL else t
    for start_n in range(0, end, BLOCK_N):
        keys = start_n + cols
        inside = keys < t
        k = tl.load(k_base + keys[None, :] * skt + dims[:, None] * skd, mask=inside[None, :], other=0.0)
        s = tl.dot(q, k) * scale
        keep = inside[None, :]
        if CAUSAL:
            keep = keep & (keys[None, :] <= rows[:, None])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp(m_i - m_new)          # rescales what was summed against the old maximum
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + keys[:, None] * svt + dims[None, :] * svd, mask=inside[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(o_ptr + b * sob + h * soh + rows[:, None] * sot + dims[None, :] * sod, o.to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < t)
    tl.store(lse_ptr + b * slb + h * slh + rows * slt, m_i + tl.log(l_i), mask=rows < t)


def flash_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                    scale: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    batch, heads, t, d = q.shape
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    o = torch.empty((batch, heads, t, d), dtype=q.dtype, device=q.device)
    lse = torch.empty((batch, heads, t), dtype=torch.float32, device=q.device)
    BLOCK_M, BLOCK_N = 16, 64
    grid = (triton.cdiv(t, BLOCK_M), batch * heads)
    attention_kernel[grid](q, k, v, o, lse, scale, heads, t, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                           *lse.stride(), CAUSAL=causal, D=d, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return o, lse
