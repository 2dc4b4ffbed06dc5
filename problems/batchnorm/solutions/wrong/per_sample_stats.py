# expect: wrong_answer
# mistake: the statistics are taken over (H, W) of each sample, instance norm, not over (N, H, W)
# message: over (N, H, W) together
# fails-on: train-and-eval-float64
import torch
from torch import nn


class BatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True):
        super().__init__()
        self.num_features, self.eps, self.momentum, self.affine = num_features, eps, momentum, affine
        if affine:
            self.weight = nn.Parameter(torch.ones(num_features))
            self.bias = nn.Parameter(torch.zeros(num_features))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x):
        if self.training:
            count = x.numel() // x.shape[1]
            if count == 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got input of size {x.shape}")
            sample_mean = x.mean(dim=(2, 3), keepdim=True)
            sample_var = (x - sample_mean).square().mean(dim=(2, 3), keepdim=True)
            mean, var = sample_mean.mean(0).flatten(), sample_var.mean(0).flatten()
            with torch.no_grad():
                self.num_batches_tracked += 1
                factor = 1 / self.num_batches_tracked.item() if self.momentum is None else self.momentum
                unbiased = var * count / (count - 1)
                self.running_mean.mul_(1 - factor).add_(factor * mean)
                self.running_var.mul_(1 - factor).add_(factor * unbiased)
            y = (x - sample_mean) * torch.rsqrt(sample_var + self.eps)
            return y * self.weight[:, None, None] + self.bias[:, None, None] if self.affine else y
        else:
            mean, var = self.running_mean, self.running_var
        y = (x - mean[:, None, None]) * torch.rsqrt(var + self.eps)[:, None, None]
        if self.affine:
            y = y * self.weight[:, None, None] + self.bias[:, None, None]
        return y
