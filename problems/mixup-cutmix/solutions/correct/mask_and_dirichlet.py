# expect: accepted
# mixup with torch.lerp; cutmix through a boolean mask of the box and torch.where; lam from a Dirichlet(alpha,
# alpha) draw, whose first coordinate is Beta(alpha, alpha).
import math

import torch


def mixup(x, y, lam, perm):
    return torch.lerp(x[perm], x, lam), torch.lerp(y[perm], y, lam)


def cutmix(x, y, lam, perm, cy, cx):
    h, w = x.shape[-2:]
    side = math.sqrt(1 - lam)
    half_h, half_w = int(h * side) // 2, int(w * side) // 2
    rows = torch.arange(h, device=x.device)
    cols = torch.arange(w, device=x.device)
    inside_rows = (rows >= cy - half_h) & (rows < cy + half_h)
    inside_cols = (cols >= cx - half_w) & (cols < cx + half_w)
    box = inside_rows[:, None] & inside_cols[None, :]
    area = int(inside_rows.sum()) * int(inside_cols.sum())
    lam = 1 - area / (h * w)
    return torch.where(box, x[perm], x), lam * y + (1 - lam) * y[perm], lam


def sample_params(batch, height, width, alpha, generator):
    pair = torch._sample_dirichlet(torch.tensor([alpha, alpha], dtype=torch.float64), generator=generator)
    perm = torch.randperm(batch, generator=generator)
    cy, cx = (int(torch.randint(0, size, (1,), generator=generator)) for size in (height, width))
    return pair[0].item(), perm, cy, cx
