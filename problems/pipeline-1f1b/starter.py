import torch
import torch.distributed as dist
from torch import nn


def one_f_one_b(stages: int, micro_batches: int) -> list[list[tuple[str, int]]]:
    """schedule[s]: the steps stage s takes, in order, each ("F", i) or ("B", i) for micro-batch i."""
    raise NotImplementedError


def pipeline_step(stage: nn.Module, x: torch.Tensor | None, target: torch.Tensor | None, micro_batches: int,
                  loss_fn, activation_shape: tuple[int, int]) -> None:
    """Runs this rank's stage (stage index = dist.get_rank()) through its 1F1B steps, leaving in .grad of its
    parameters their gradients of the mean loss over all micro-batches."""
    raise NotImplementedError
