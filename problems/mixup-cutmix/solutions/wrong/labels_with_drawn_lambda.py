# expect: wrong_answer
# mistake: lam is corrected and returned, but the targets are mixed with the lam that was drawn
# message: the targets must be mixed with that
# fails-on: square-images
import math

import torch


def mixup(x, y, lam, perm):
    return lam * x + (1 - lam) * x[perm], lam * y + (1 - lam) * y[perm]


def cutmix(x, y, lam, perm, cy, cx):
    height, width = x.shape[-2:]
    ratio = math.sqrt(1.0 - lam)
    cut_h, cut_w = int(height * ratio), int(width * ratio)
    y1, y2 = min(max(cy - cut_h // 2, 0), height), min(max(cy + cut_h // 2, 0), height)
    x1, x2 = min(max(cx - cut_w // 2, 0), width), min(max(cx + cut_w // 2, 0), width)
    mixed = x.clone()
    mixed[..., y1:y2, x1:x2] = x[perm][..., y1:y2, x1:x2]
    kept = 1.0 - (y2 - y1) * (x2 - x1) / (height * width)
    return mixed, lam * y + (1 - lam) * y[perm], kept


def sample_params(batch, height, width, alpha, generator):
    g = torch._standard_gamma(torch.full((2,), float(alpha), dtype=torch.float64), generator=generator)
    lam = float(g[0] / (g[0] + g[1]))
    perm = torch.randperm(batch, generator=generator)
    cy = int(torch.randint(height, (), generator=generator))
    cx = int(torch.randint(width, (), generator=generator))
    return lam, perm, cy, cx
