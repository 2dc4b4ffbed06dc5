# expect: wrong_answer
# message: exp(s) overflows past 88
# fails-on: large-scores
# Accumulates exp(s) and its sum tile by tile without any running maximum: exp overflows at scores above 88.
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
            p = torch.exp(s)
            l = l + p.sum(dim=-1, keepdim=True)
            acc = acc + p @ v[..., ks:ke, :]
        out[..., qs:qe, :] = acc / l
    return out
