# expect: runtime_error
# message: past its end
# No mask: right while n is a multiple of the block, but the last block of 1000 elements reads (and writes) 24
# elements past the end of every tensor. On a GPU that is an illegal memory access, or silently wrong.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets * sx) + tl.load(y_ptr + offsets * sy))


def add(x, y):
    out = torch.empty(x.shape, dtype=x.dtype)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, x.stride(0), y.stride(0), BLOCK=256)
    return out
