# expect: wrong_answer
# mistake: draws with NumPy's global random state, ignoring the generator: the draws cannot be reproduced
# message: a generator seeded alike gave other draws
# fails-on: draws-alpha-0.4
import math

import numpy as np

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
    lam = 1.0 - (y2 - y1) * (x2 - x1) / (height * width)
    return mixed, lam * y + (1 - lam) * y[perm], lam


def sample_params(batch, height, width, alpha, generator):
    lam = float(np.random.beta(alpha, alpha))
    perm = torch.from_numpy(np.random.permutation(batch))
    cy, cx = int(np.random.randint(height)), int(np.random.randint(width))
    return lam, perm, cy, cx
