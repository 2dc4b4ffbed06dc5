# expect: accepted
# Beta as a ratio of two Gamma draws (torch._standard_gamma takes the generator), a permutation by sorting
# uniform keys, and the box pasted sample by sample.
import math

import torch


def mixup(x, y, lam, perm):
    mixed_x = torch.stack([lam * x[i] + (1 - lam) * x[int(perm[i])] for i in range(len(x))])
    mixed_y = torch.stack([lam * y[i] + (1 - lam) * y[int(perm[i])] for i in range(len(y))])
    return mixed_x, mixed_y


def clip(value, high):
    return max(0, min(value, high))


def cutmix(x, y, lam, perm, cy, cx):
    height, width = x.shape[-2], x.shape[-1]
    cut_h = int(height * math.sqrt(1.0 - lam))
    cut_w = int(width * math.sqrt(1.0 - lam))
    y1, y2 = clip(cy - cut_h // 2, height), clip(cy + cut_h // 2, height)
    x1, x2 = clip(cx - cut_w // 2, width), clip(cx + cut_w // 2, width)
    mixed = torch.empty_like(x)
    for i in range(len(x)):
        mixed[i] = x[i]
        mixed[i, :, y1:y2, x1:x2] = x[int(perm[i]), :, y1:y2, x1:x2]
    kept = 1.0 - (y2 - y1) * (x2 - x1) / (height * width)
    return mixed, kept * y + (1.0 - kept) * y[perm], kept


def sample_params(batch, height, width, alpha, generator):
    a = torch._standard_gamma(torch.tensor([alpha], dtype=torch.float64), generator=generator)
    b = torch._standard_gamma(torch.tensor([alpha], dtype=torch.float64), generator=generator)
    lam = (a / (a + b)).item()
    perm = torch.rand(batch, generator=generator).argsort()
    cy = int(torch.randint(height, (1,), generator=generator))
    cx = int(torch.randint(width, (1,), generator=generator))
    return lam, perm, cy, cx
