# expect: accepted
# style: einsum projections over any number of leading axes, with torch.nn.SiLU as a submodule
import torch
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_hidden, d_model, bias=False)
        self.act = nn.SiLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.einsum("...d,hd->...h", x, self.w1.weight)
        up = torch.einsum("...d,hd->...h", x, self.w3.weight)
        return torch.einsum("...h,dh->...d", self.act(gate) * up, self.w2.weight)
