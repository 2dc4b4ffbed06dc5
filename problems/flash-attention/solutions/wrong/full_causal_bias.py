# expect: memory_limit_exceeded
# message: score matrix
# fails-on: long-4096-causal
# Tiles right, but builds the causal mask once as a T × T additive bias (0 or -inf, as GPT-2's buffer does) and
# adds a slice of it to each tile: at T = 4096 the bias alone is as large as the score matrix it avoids.
import math

import torch


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    t, d = q.shape[-2:]
    bias = None
    if causal:
        bias = torch.full((t, t), -math.inf, dtype=q.dtype, device=q.device).triu(1)
    out = torch.empty_like(q)
    for qs in range(0, t, block_q):
        qe = min(qs + block_q, t)
        qt = q[..., qs:qe, :] / math.sqrt(d)
        m = torch.full(qt.shape[:-1] + (1,), -math.inf, dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros_like(qt)
        for ks in range(0, qe if causal else t, block_k):
            ke = min(ks + block_k, t)
            s = qt @ k[..., ks:ke, :].transpose(-2, -1)
            if bias is not None:
                s = s + bias[qs:qe, ks:ke]
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m_new)
            alpha = torch.exp(m - m_new)
            l = l * alpha + p.sum(dim=-1, keepdim=True)
            acc = acc * alpha + p @ v[..., ks:ke, :]
            m = m_new
        out[..., qs:qe, :] = acc / l
    return out
