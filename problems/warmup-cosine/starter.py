import torch


class WarmupCosine:
    """Linear warmup from warmup_start_lr to each param group's peak (its lr when built) over warmup_steps, then a
    half cosine down to min_lr at total_steps, min_lr after. Sets every group's lr at construction and after
    each step(); resumable from state_dict()."""

    def __init__(self, optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int,
                 min_lr: float = 0.0, warmup_start_lr: float = 0.0) -> None:
        raise NotImplementedError

    def step(self) -> None:
        """Advance one step and set every param group's lr to the schedule's value there."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The lr last set, one per param group."""
        raise NotImplementedError

    def state_dict(self) -> dict:
        raise NotImplementedError

    def load_state_dict(self, state_dict: dict) -> None:
        raise NotImplementedError
