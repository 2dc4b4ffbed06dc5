# expect: wrong_answer
# mistake: momentum weighs the old running value (the Keras / "decay" convention), not the new batch
# message: momentum is the weight of the new batch
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
            mean = x.mean(dim=(0, 2, 3))
            var = (x - mean[:, None, None]).square().mean(dim=(0, 2, 3))  # biased: what normalises the batch
            with torch.no_grad():
                self.num_batches_tracked += 1
                factor = 1 / self.num_batches_tracked.item() if self.momentum is None else self.momentum
                unbiased = var * count / (count - 1)
                self.running_mean.mul_(factor).add_((1 - factor) * mean)
                self.running_var.mul_(factor).add_((1 - factor) * unbiased)
        else:
            mean, var = self.running_mean, self.running_var
        y = (x - mean[:, None, None]) * torch.rsqrt(var + self.eps)[:, None, None]
        if self.affine:
            y = y * self.weight[:, None, None] + self.bias[:, None, None]
        return y
