# expect: memory_limit_exceeded
# message: a score tile must be block_q queries against block_k keys
# fails-on: tile-memory
# Exact attention with a hand-written softmax over the whole T x T score matrix, both tile sizes ignored: right
# values, and several score-matrix-sized temporaries where FlashAttention holds one block_q x block_k tile (at
# T = 4096, 128 MiB each).
import math

import torch


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    t = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1), -math.inf)
    weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    return (weights / weights.sum(dim=-1, keepdim=True)) @ v
