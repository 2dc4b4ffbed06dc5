import torch


class DelayedScaler:
    """Per-tensor delayed scaling into torch.float8_e4m3fn with an amax history, as Transformer Engine does it."""

    def __init__(self, history_len: int = 1024, margin: int = 0) -> None:
        """The scale starts at 1.0; the history holds history_len amaxes, all 0.0 at first."""
        raise NotImplementedError

    def cast(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Cast x with the current scale (saturating at +-448), record max|x| in the history, then update the
        scale for the next call to (448 / max(history)) / 2**margin, unless that max is 0 or not finite.

        Returns (x_fp8, scale_inv, scale): x_fp8 in torch.float8_e4m3fn, 1 / (the scale used) and the updated
        scale, both 0-dim float32 tensors.
        """
        raise NotImplementedError
