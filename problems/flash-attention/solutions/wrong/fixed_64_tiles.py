# expect: memory_limit_exceeded
# message: a score tile must be block_q queries against block_k keys
# fails-on: tile-memory
# The right algorithm with the tile size written in as the default, 64 × 64: block_q and block_k are accepted
# and never read, so a caller asking for smaller tiles gets 64 × 64 ones.
import math

import torch

BLOCK = 64


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    t, d = q.shape[-2:]
    out = torch.empty_like(q)
    for qs in range(0, t, BLOCK):
        qe = min(qs + BLOCK, t)
        qt = q[..., qs:qe, :] / math.sqrt(d)
        m = torch.full(qt.shape[:-1] + (1,), -math.inf, dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros_like(qt)
        for ks in range(0, qe if causal else t, BLOCK):
            ke = min(ks + BLOCK, t)
            s = qt @ k[..., ks:ke, :].transpose(-2, -1)
            if causal:
                rows = torch.arange(qs, qe, device=q.device)[:, None]
                s = s.masked_fill(torch.arange(ks, ke, device=q.device) > rows, -math.inf)
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m_new)
            alpha = torch.exp(m - m_new)
            l = l * alpha + p.sum(dim=-1, keepdim=True)
            acc = acc * alpha + p @ v[..., ks:ke, :]
            m = m_new
        out[..., qs:qe, :] = acc / l
    return out
