import torch


def mixup(x: torch.Tensor, y: torch.Tensor, lam: float, perm: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """x (B, C, H, W), y (B, K) targets, lam in [0, 1], perm (B,) int64: sample i is mixed with sample perm[i].

    Returns (lam * x + (1 - lam) * x[perm], lam * y + (1 - lam) * y[perm]), new tensors.
    """
    raise NotImplementedError


def cutmix(x: torch.Tensor, y: torch.Tensor, lam: float, perm: torch.Tensor, cy: int, cx: int
           ) -> tuple[torch.Tensor, torch.Tensor, float]:
    """Paste the box of sample perm[i] into sample i; return (x_mixed, y_mixed, lam corrected).

    cut_h = int(H * math.sqrt(1 - lam)), cut_w = int(W * math.sqrt(1 - lam)); rows clip(cy - cut_h // 2, 0, H)
    to clip(cy + cut_h // 2, 0, H), columns likewise with cx and W; lam corrected = 1 - box area / (H * W).
    """
    raise NotImplementedError


def sample_params(batch: int, height: int, width: int, alpha: float, generator: torch.Generator
                  ) -> tuple[float, torch.Tensor, int, int]:
    """(lam ~ Beta(alpha, alpha), a uniform permutation of range(batch), cy uniform in range(height), cx uniform
    in range(width)), every number drawn from generator."""
    raise NotImplementedError
