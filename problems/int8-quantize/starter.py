import torch


def quantize(w: torch.Tensor, group_size: int, bits: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    """Symmetric group-wise quantization of w (..., n) in groups of group_size along the last dimension.

    Returns (codes, scales): scales float32 (..., n // group_size), each group's amax / (2**(bits-1) - 1);
    codes round(w / scale), ties to even, in [-q, q]: int8 (..., n) for bits=8, or for bits=4 uint8
    (..., n // 2) with entry 2j in the low nibble and 2j + 1 in the high nibble (two's complement).
    torch.quantize_per_* and fake_quantize_* are not allowed here.
    """
    raise NotImplementedError


def dequantize(codes: torch.Tensor, scales: torch.Tensor, group_size: int, bits: int = 8) -> torch.Tensor:
    """float32 (..., n): each code times its group's scale (codes in quantize's format)."""
    raise NotImplementedError
