# expect: wrong_answer
# mistake: the gate is sigmoid(w1(x)), the original GLU: SwiGLU's gate is silu(w1(x)) = w1(x) * sigmoid(w1(x))
# message: SiLU
import torch
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(torch.sigmoid(self.w1(x)) * self.w3(x))
