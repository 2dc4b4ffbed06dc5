import torch


def scaled_tanh(x: torch.Tensor, scale: torch.Tensor, shift: float = 0.0) -> torch.Tensor:
    raise NotImplementedError
