# expect: memory_limit_exceeded
# message: a score tile must be block_q queries against block_k keys
# fails-on: tile-memory
# Tiles the keys only: every query at once against one key tile, with an online softmax over the key tiles.
# Right values, but each score tile is T × block_k, not block_q × block_k.
import math

import torch


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    t, d = q.shape[-2:]
    scaled = q / math.sqrt(d)
    m = torch.full(q.shape[:-1] + (1,), -math.inf, dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros_like(q)
    rows = torch.arange(t, device=q.device)[:, None]
    for ks in range(0, t, block_k):
        ke = min(ks + block_k, t)
        s = scaled @ k[..., ks:ke, :].transpose(-2, -1)
        if causal:
            s = s.masked_fill(torch.arange(ks, ke, device=q.device) > rows, -math.inf)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        alpha = torch.exp(m - m_new)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ v[..., ks:ke, :]
        m = m_new
    return acc / l
