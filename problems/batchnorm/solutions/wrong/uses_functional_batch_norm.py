# expect: forbidden
# mistake: the module hands the work to F.batch_norm, the built-in this problem asks you to write
# message: aten::native_batch_norm
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
            self.num_batches_tracked.add_(1)
        momentum = 1.0 / self.num_batches_tracked.item() if self.momentum is None else self.momentum
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias, self.training,
                            momentum, self.eps)
