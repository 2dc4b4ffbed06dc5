import torch


class LossScaler:
    """Dynamic loss scaling for fp16 training, as torch.amp.GradScaler does it."""

    def __init__(self, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        raise NotImplementedError

    def scale(self, loss: torch.Tensor) -> torch.Tensor:
        """loss times the current scale."""
        raise NotImplementedError

    def step(self, optimizer: torch.optim.Optimizer) -> bool:
        """Unscale the gradients in place; call optimizer.step() and return True unless one is inf or NaN."""
        raise NotImplementedError

    def update(self) -> None:
        """Back off after a skipped step; grow after growth_interval steps in a row that were not skipped."""
        raise NotImplementedError

    def get_scale(self) -> float:
        raise NotImplementedError
