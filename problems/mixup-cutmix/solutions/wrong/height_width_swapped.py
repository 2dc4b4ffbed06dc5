# expect: wrong_answer
# mistake: the widely copied CutMix code's swap: size(2) called W and paired with cx, so the box's rows come from cx
# message: its columns from cx and W
# fails-on: square-images
import math

import torch


def mixup(x, y, lam, perm):
    return lam * x + (1 - lam) * x[perm], lam * y + (1 - lam) * y[perm]


def cutmix(x, y, lam, perm, cy, cx):
    width, height = x.shape[2], x.shape[3]  # (B, C, W, H)?
    ratio = math.sqrt(1.0 - lam)
    cut_h, cut_w = int(height * ratio), int(width * ratio)
    x1, x2 = min(max(cx - cut_w // 2, 0), width), min(max(cx + cut_w // 2, 0), width)
    y1, y2 = min(max(cy - cut_h // 2, 0), height), min(max(cy + cut_h // 2, 0), height)
    mixed = x.clone()
    mixed[..., x1:x2, y1:y2] = x[perm][..., x1:x2, y1:y2]
    lam = 1.0 - (y2 - y1) * (x2 - x1) / (height * width)
    return mixed, lam * y + (1 - lam) * y[perm], lam


def sample_params(batch, height, width, alpha, generator):
    g = torch._standard_gamma(torch.full((2,), float(alpha), dtype=torch.float64), generator=generator)
    lam = float(g[0] / (g[0] + g[1]))
    perm = torch.randperm(batch, generator=generator)
    cy = int(torch.randint(height, (), generator=generator))
    cx = int(torch.randint(width, (), generator=generator))
    return lam, perm, cy, cx
