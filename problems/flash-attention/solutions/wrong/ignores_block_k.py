# expect: memory_limit_exceeded
# message: a score tile must be block_q queries against block_k keys
# fails-on: tile-memory
# Tiles the queries only: each query tile against every key at once, with a plain softmax over the whole row.
# Right values, but each score tile is block_q × T, not block_q × block_k, and nothing is online.
import math

import torch


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    t, d = q.shape[-2:]
    out = torch.empty_like(q)
    for qs in range(0, t, block_q):
        qe = min(qs + block_q, t)
        stop = qe if causal else t
        s = q[..., qs:qe, :] @ k[..., :stop, :].transpose(-2, -1) / math.sqrt(d)
        if causal:
            rows = torch.arange(qs, qe, device=q.device)[:, None]
            s = s.masked_fill(torch.arange(stop, device=q.device) > rows, -math.inf)
        p = torch.exp(s - s.amax(dim=-1, keepdim=True))
        out[..., qs:qe, :] = (p @ v[..., :stop, :]) / p.sum(dim=-1, keepdim=True)
    return out
