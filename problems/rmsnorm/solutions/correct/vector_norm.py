# expect: accepted
# The root mean square from the Euclidean norm: mean(x²) = ‖x‖² / d, with eps still inside the square root.
import math

import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    d = x.shape[-1]
    norm = torch.linalg.vector_norm(x, ord=2, dim=-1, keepdim=True, dtype=torch.promote_types(x.dtype, torch.float32))
    rms = torch.sqrt(norm.square() / d + eps)
    return (x / rms * weight).to(x.dtype)
