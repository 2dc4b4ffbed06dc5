# expect: accepted
# The box with numpy.clip, the cut pasted into a copy; the draws from a NumPy Generator seeded from the torch
# generator (so the same generator gives the same draws).
import numpy as np
import torch


def mixup(x, y, lam, perm):
    partner_x, partner_y = x.index_select(0, perm), y.index_select(0, perm)
    return x * lam + partner_x * (1.0 - lam), y * lam + partner_y * (1.0 - lam)


def cutmix(x, y, lam, perm, cy, cx):
    H, W = x.shape[2], x.shape[3]
    cut_h, cut_w = int(H * np.sqrt(1.0 - lam)), int(W * np.sqrt(1.0 - lam))
    top, bottom = np.clip([cy - cut_h // 2, cy + cut_h // 2], 0, H)
    left, right = np.clip([cx - cut_w // 2, cx + cut_w // 2], 0, W)
    out = x.detach().clone()
    out[:, :, top:bottom, left:right] = x[perm, :, top:bottom, left:right]
    lam = 1.0 - float((bottom - top) * (right - left)) / (H * W)
    return out, y * lam + y[perm] * (1.0 - lam), lam


def sample_params(batch, height, width, alpha, generator):
    rng = np.random.default_rng(int(torch.randint(0, 2 ** 62, (1,), generator=generator)))
    lam = float(rng.beta(alpha, alpha))
    perm = torch.from_numpy(rng.permutation(batch))
    return lam, perm, int(rng.integers(height)), int(rng.integers(width))
