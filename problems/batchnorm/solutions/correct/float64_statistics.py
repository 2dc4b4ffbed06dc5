# expect: accepted
# The statistics accumulated in float64 and cast back, the running buffers updated by assigning new tensors.
import torch
from torch import nn


class BatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True):
        super().__init__()
        self.num_features, self.eps, self.momentum, self.affine = num_features, eps, momentum, affine
        self.weight = nn.Parameter(torch.ones(num_features)) if affine else None
        self.bias = nn.Parameter(torch.zeros(num_features)) if affine else None
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.int64))

    def forward(self, x):
        shape = (1, -1, 1, 1)
        if self.training:
            count = x.numel() // self.num_features
            if count <= 1:
                raise ValueError("more than 1 value per channel is needed when training")
            wide = x.double()
            mean64 = wide.mean(dim=[0, 2, 3])
            var64 = ((wide - mean64.view(shape)) ** 2).sum(dim=[0, 2, 3])
            mean, var = mean64.to(x.dtype), (var64 / count).to(x.dtype)
            self.num_batches_tracked = self.num_batches_tracked + 1
            m = self.momentum if self.momentum is not None else 1.0 / int(self.num_batches_tracked)
            self.running_mean = ((1 - m) * self.running_mean + m * mean).detach()
            self.running_var = ((1 - m) * self.running_var + m * (var64 / (count - 1)).to(x.dtype)).detach()
        else:
            mean, var = self.running_mean, self.running_var
        y = (x - mean.view(shape)) / (var.view(shape) + self.eps).sqrt()
        return y * self.weight.view(shape) + self.bias.view(shape) if self.affine else y
