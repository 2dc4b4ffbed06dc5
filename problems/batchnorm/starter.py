import torch
from torch import nn


class BatchNorm2d(nn.Module):
    """Batch normalisation over the channels of an (N, C, H, W) input, as torch.nn.BatchNorm2d.

    Training mode normalises each channel with the mean and biased variance of its N*H*W values, then updates
        running_mean <- (1 - momentum) * running_mean + momentum * mean
        running_var  <- (1 - momentum) * running_var  + momentum * unbiased variance
    (momentum=None: a cumulative average, momentum = 1 / num_batches_tracked) and adds 1 to num_batches_tracked.
    Evaluation mode normalises with running_mean and running_var. Both then scale by weight and add bias
    (when affine). Training with one value per channel (N*H*W == 1) raises ValueError.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True) -> None:
        super().__init__()
        # weight and bias: nn.Parameter of shape (num_features,) (None when affine=False);
        # running_mean, running_var, num_batches_tracked: buffers (self.register_buffer).
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError
