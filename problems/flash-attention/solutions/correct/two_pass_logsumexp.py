# expect: accepted
# Not online: per query tile, a first pass over the key tiles finds each row's logsumexp, a second pass adds
# exp(s - lse) @ v. Twice the matmuls, the same tile-sized memory, and no rescaling at all.
import math

import torch


def tiles(q_tile, k, qs, causal, block_k, scale):
    t = k.shape[-2]
    stop = min(qs + q_tile.shape[-2], t) if causal else t
    for ks in range(0, stop, block_k):
        ke = min(ks + block_k, t)
        s = (q_tile @ k[..., ks:ke, :].mT) * scale
        if causal:
            rows = torch.arange(qs, qs + q_tile.shape[-2], device=s.device)
            s = s.masked_fill(torch.arange(ks, ke, device=s.device) > rows[:, None], -math.inf)
        yield ks, ke, s


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    scale = 1 / math.sqrt(q.shape[-1])
    out = torch.empty_like(q)
    for qs in range(0, q.shape[-2], block_q):
        q_tile = q[..., qs:qs + block_q, :]
        lse = torch.full(q_tile.shape[:-1], -math.inf, dtype=q.dtype, device=q.device)
        for _, _, s in tiles(q_tile, k, qs, causal, block_k, scale):
            lse = torch.logaddexp(lse, torch.logsumexp(s, dim=-1))
        total = torch.zeros_like(q_tile)
        for ks, ke, s in tiles(q_tile, k, qs, causal, block_k, scale):
            total += torch.exp(s - lse[..., None]) @ v[..., ks:ke, :]
        out[..., qs:qs + block_q, :] = total
    return out
