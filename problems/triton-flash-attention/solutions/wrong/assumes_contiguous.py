# expect: wrong_answer
# message: offsets computed as if q, k and v were contiguous
# Computes every offset from the sizes, as for a contiguous (B, H, T, d) tensor: (b·H + h)·T·d + t·d + i. Right
# for every contiguous input, but the view a QKV projection leaves, qkv.view(B, T, H, d).transpose(1, 2), holds
# q[b, h, t, i] at b·T·H·d + t·H·d + h·d + i: this reads other heads' rows.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, scale, t,
                     CAUSAL: tl.constexpr, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1) * t * D  # (b·H + h)·T·d: where this head starts, if everything were contiguous
    rows = start_m + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, D)
    q = tl.load(q_ptr + head + rows[:, None] * D + dims[None, :], mask=rows[:, None] < t, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    end = tl.minimum(start_m + BLOCK_M, t) if CAUSAL else t
    for start_n in range(0, end, BLOCK_N):
        keys = start_n + cols
        k = tl.load(k_ptr + head + keys[None, :] * D + dims[:, None], mask=keys[None, :] < t, other=0.0)
        s = tl.dot(q, k) * scale
        keep = keys[None, :] < t
        if CAUSAL:
            keep = keep & (keys[None, :] <= rows[:, None])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + head + keys[:, None] * D + dims[None, :], mask=keys[:, None] < t, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(o_ptr + head + rows[:, None] * D + dims[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < t)
    tl.store(lse_ptr + tl.program_id(1) * t + rows, m_i + tl.log(l_i), mask=rows < t)


def flash_attention(q, k, v, causal=False, scale=None):
    batch, heads, t, d = q.shape
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    o = torch.empty((batch, heads, t, d), dtype=q.dtype)
    lse = torch.empty((batch, heads, t), dtype=torch.float32)
    attention_kernel[(triton.cdiv(t, 64), batch * heads)](q, k, v, o, lse, scale, t, CAUSAL=causal, D=d,
                                                          BLOCK_M=64, BLOCK_N=64)
    return o, lse
