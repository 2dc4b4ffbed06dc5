# expect: forbidden
# mistake: each channel is a "sample" of x.transpose(0, 1), so F.layer_norm over its (N, H, W) values is the batch
# normalisation: a built-in normalisation kernel doing the statistics this problem asks you to write
# message: aten::native_layer_norm
# fails-on: train-and-eval-float64
import torch
import torch.nn.functional as F
from torch import nn


class BatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features)) if affine else None
        self.bias = nn.Parameter(torch.zeros(num_features)) if affine else None
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x):
        if self.training:
            per_channel = x.transpose(0, 1)
            if per_channel[0].numel() == 1:
                raise ValueError("Expected more than 1 value per channel when training")
            y = F.layer_norm(per_channel, per_channel.shape[1:], eps=self.eps).transpose(0, 1)
            with torch.no_grad():
                self.num_batches_tracked.add_(1)
                factor = self.momentum if self.momentum is not None else 1.0 / self.num_batches_tracked.item()
                flat = per_channel.flatten(1)
                self.running_mean.mul_(1 - factor).add_(flat.mean(1) * factor)
                self.running_var.mul_(1 - factor).add_(flat.var(1) * factor)
        else:
            y = (x - self.running_mean[:, None, None]) / torch.sqrt(self.running_var[:, None, None] + self.eps)
        if self.weight is not None:
            y = y * self.weight[:, None, None] + self.bias[:, None, None]
        return y
