# expect: accepted
# A torch.autograd.Function with the closed-form BatchNorm backward; eval mode is a per-channel affine map.
import torch
from torch import nn

DIMS = (0, 2, 3)


class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        mean = x.mean(DIMS, keepdim=True)
        centred = x - mean
        var = centred.square().mean(DIMS, keepdim=True)
        inv_std = torch.rsqrt(var + eps)
        x_hat = centred * inv_std
        ctx.save_for_backward(x_hat, inv_std, weight)
        return x_hat * weight.view(1, -1, 1, 1) + bias.view(1, -1, 1, 1), mean.flatten(), var.flatten()

    @staticmethod
    def backward(ctx, dy, _dmean, _dvar):
        x_hat, inv_std, weight = ctx.saved_tensors
        g = dy * weight.view(1, -1, 1, 1)
        dx = inv_std * (g - g.mean(DIMS, keepdim=True) - x_hat * (g * x_hat).mean(DIMS, keepdim=True))
        return dx, (dy * x_hat).sum(DIMS), dy.sum(DIMS), None


class BatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True):
        super().__init__()
        self.num_features, self.eps, self.momentum, self.affine = num_features, eps, momentum, affine
        self.weight = nn.Parameter(torch.ones(num_features)) if affine else None
        self.bias = nn.Parameter(torch.zeros(num_features)) if affine else None
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0))

    def forward(self, x):
        c = x.shape[1]
        weight = self.weight if self.affine else x.new_ones(c)
        bias = self.bias if self.affine else x.new_zeros(c)
        if not self.training:
            scale = weight * torch.rsqrt(self.running_var + self.eps)
            return x * scale.view(1, -1, 1, 1) + (bias - self.running_mean * scale).view(1, -1, 1, 1)
        n = x.numel() // c
        if n < 2:
            raise ValueError("BatchNorm2d needs more than one value per channel in training mode")
        y, mean, var = BatchNormFunction.apply(x, weight, bias, self.eps)
        with torch.no_grad():
            self.num_batches_tracked.add_(1)
            m = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
            self.running_mean.mul_(1 - m).add_(mean, alpha=m)
            self.running_var.mul_(1 - m).add_(var, alpha=m * n / (n - 1))
        return y
