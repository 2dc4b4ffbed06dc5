# expect: accepted
# style: torch.nn.functional.scaled_dot_product_attention on q, k, v cut from one permute of the fused projection
import torch
import torch.nn.functional as F
from torch import nn


class MHSA(nn.Module):
    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.causal = causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, d_model = x.shape
        q, k, v = self.qkv(x).view(batch, seq, 3, self.n_heads, -1).permute(2, 0, 3, 1, 4)
        heads = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return self.out(heads.transpose(1, 2).reshape(batch, seq, d_model))
