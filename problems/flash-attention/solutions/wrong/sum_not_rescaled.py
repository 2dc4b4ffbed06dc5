# expect: wrong_answer
# message: the sum of exponentials so far must be multiplied by exp(m_old - m_new)
# fails-on: two-key-blocks
# Rescales the accumulated output when the maximum grows, but adds each tile's sum to a stale running sum.
import math

import torch


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    t, d = q.shape[-2:]
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
            if causal:
                rows = torch.arange(qs, qe, device=q.device)[:, None]
                s = s.masked_fill(torch.arange(ks, ke, device=q.device) > rows, -math.inf)
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m_new)
            alpha = torch.exp(m - m_new)
            l = l + p.sum(dim=-1, keepdim=True)
            acc = acc * alpha + p @ v[..., ks:ke, :]
            m = m_new
        out[..., qs:qe, :] = acc / l
    return out
