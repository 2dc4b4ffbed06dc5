# expect: runtime_error
# message: refused a new thread
# problem: mhsa
# tests: all
# Correct attention, but the score matrices are made on a helper thread, where the calling thread's tensor
# tracker never sees them, so the memory a call is charged leaves out its largest temporaries (each under the
# resident-growth slack the outside view allows at the sample sizes). The judge refuses threads the submission
# starts instead.
import math
import threading

import torch
from torch import nn


class MHSA(nn.Module):
    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.n_heads, self.causal = n_heads, causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, d_model = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.n_heads, -1).permute(2, 0, 3, 1, 4)
        result, grad_enabled = [], torch.is_grad_enabled()

        def attend():
            with torch.set_grad_enabled(grad_enabled):
                scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
                if self.causal:
                    mask = torch.ones(length, length, dtype=torch.bool, device=x.device).triu(1)
                    scores = scores.masked_fill(mask, float("-inf"))
                result.append(scores.softmax(-1) @ v)

        worker = threading.Thread(target=attend)
        worker.start()
        worker.join()
        return self.out(result[0].transpose(1, 2).reshape(batch, length, d_model))
