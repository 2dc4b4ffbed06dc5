# expect: memory_limit_exceeded
# message: score matrix
# fails-on: long-4096-causal
# Exact attention with a hand-written softmax over the whole T x T score matrix: right values, and at
# T = 4096 several 128 MiB temporaries where FlashAttention holds one tile.
import math

import torch


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    t = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1), -math.inf)
    weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    return (weights / weights.sum(dim=-1, keepdim=True)) @ v
