# expect: accepted
# Channels first and flattened, torch.var_mean with correction=0, and the running estimates by lerp_.
import torch
from torch import nn


class BatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True):
        super().__init__()
        self.eps, self.momentum, self.affine = eps, momentum, affine
        if affine:
            self.weight = nn.Parameter(torch.ones(num_features))
            self.bias = nn.Parameter(torch.zeros(num_features))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        n, c, h, w = x.shape
        rows = x.transpose(0, 1).reshape(c, n * h * w)
        if self.training:
            if n * h * w == 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got {tuple(x.shape)}")
            var, mean = torch.var_mean(rows, dim=1, correction=0)
            with torch.no_grad():
                self.num_batches_tracked += 1
                factor = self.momentum if self.momentum is not None else 1 / self.num_batches_tracked.item()
                self.running_mean.lerp_(mean, factor)
                self.running_var.lerp_(torch.var(rows, dim=1, correction=1), factor)
        else:
            mean, var = self.running_mean, self.running_var
        out = (rows - mean[:, None]) / torch.sqrt(var[:, None] + self.eps)
        if self.affine:
            out = torch.addcmul(self.bias[:, None], out, self.weight[:, None])
        return out.reshape(c, n, h, w).transpose(0, 1)
