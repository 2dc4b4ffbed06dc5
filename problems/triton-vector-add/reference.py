import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, x_stride, y_stride, BLOCK: tl.constexpr):
    # Program i handles elements [i * BLOCK, (i + 1) * BLOCK); the mask drops the lanes past n in the last block.
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets * x_stride, mask=mask)
    y = tl.load(y_ptr + offsets * y_stride, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    BLOCK = 256
    add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, x.stride(0), y.stride(0), BLOCK=BLOCK)
    return out
