# expect: runtime_error
# message: an input of the call
# Stores the sum into x and returns x: the caller's input is destroyed (and the output aliases it).
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets * sx, tl.load(x_ptr + offsets * sx, mask=mask) + tl.load(y_ptr + offsets * sy, mask=mask),
             mask=mask)


def add(x, y):
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), x.stride(0), y.stride(0), BLOCK=256)
    return x
