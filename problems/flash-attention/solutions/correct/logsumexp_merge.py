# expect: accepted
# Each key tile gives a normalised partial output and its logsumexp; partial results are merged by their
# logsumexps (the split-K / FlashDecoding merge) instead of carrying an unnormalised accumulator.
import math

import torch


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    t, d = q.shape[-2:]
    chunks = []
    for qs in range(0, t, block_q):
        qt = q[..., qs:qs + block_q, :] / math.sqrt(d)
        rows = torch.arange(qs, qs + qt.shape[-2], device=q.device)[:, None]
        o = lse = None
        for ks in range(0, qs + qt.shape[-2] if causal else t, block_k):
            s = torch.matmul(qt, k[..., ks:ks + block_k, :].transpose(-1, -2))
            if causal:
                s = torch.where(torch.arange(ks, ks + s.shape[-1], device=q.device) > rows, -math.inf, s)
            m = s.amax(dim=-1, keepdim=True)
            m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
            e = torch.exp(s - m)
            tile_sum = e.sum(dim=-1, keepdim=True)
            tile_out = torch.matmul(e, v[..., ks:ks + block_k, :]) / tile_sum.clamp_min(torch.finfo(q.dtype).tiny)
            tile_lse = m + torch.log(tile_sum)
            if o is None:
                o, lse = tile_out, tile_lse
                continue
            new = torch.logaddexp(lse, tile_lse)
            o = o * torch.exp(lse - new) + tile_out * torch.exp(tile_lse - new)
            lse = new
        chunks.append(o)
    return torch.cat(chunks, dim=-2)
