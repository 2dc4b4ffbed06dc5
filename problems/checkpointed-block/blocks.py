"""The blocks the checkpointed-block problem wraps: a small pre-norm transformer block, and models made of it.

Attention is written out with an explicit score matrix (not a fused kernel) so that each block keeps
large, dropout-dependent activations: the memory a checkpoint saves, and the RNG stream it must replay,
are then the same on every device.
"""

import math

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, dropout: float, causal: bool = True):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.causal = causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.attn_dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, d_model = x.shape
        head_dim = d_model // self.n_heads
        q, k, v = (
            t.view(batch, seq, self.n_heads, head_dim).transpose(1, 2)
            for t in self.qkv(x).split(d_model, dim=-1)
        )
        scores = q @ k.transpose(-2, -1) / math.sqrt(head_dim)
        if self.causal:
            blocked = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(blocked, float("-inf"))
        weights = self.attn_dropout(scores.softmax(dim=-1))
        mixed = (weights @ v).transpose(1, 2).reshape(batch, seq, d_model)
        return self.out(mixed)


class TransformerBlock(nn.Module):
    """Pre-norm block: `x + drop(attn(ln1(x)))`, then `h + drop(mlp(ln2(h)))`, mapping (B, T, C) to (B, T, C)."""

    def __init__(self, d_model: int, n_heads: int, d_hidden: int, dropout: float = 0.1, causal: bool = True):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, n_heads, dropout, causal)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, d_hidden), nn.GELU(), nn.Linear(d_hidden, d_model))
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.resid_dropout(self.attn(self.ln1(x)))
        return x + self.resid_dropout(self.mlp(self.ln2(x)))


def transformer_stack(n_blocks: int, d_model: int, n_heads: int, d_hidden: int, dropout: float = 0.1,
                      wrap=None) -> nn.Sequential:
    """`n_blocks` transformer blocks in sequence, each passed through `wrap` (for example a checkpointing class)."""
    blocks = [TransformerBlock(d_model, n_heads, d_hidden, dropout) for _ in range(n_blocks)]
    return nn.Sequential(*(wrap(block) if wrap is not None else block for block in blocks))


class SharedInputHeads(nn.Module):
    """Blocks that all read the same input, their outputs summed: task heads trained on a frozen backbone's
    features, so that every block's input is a raw tensor that does not require grad."""

    def __init__(self, heads: list[nn.Module]):
        super().__init__()
        self.heads = nn.ModuleList(heads)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.heads[0](x)
        for head in self.heads[1:]:
            out = out + head(x)
        return out
