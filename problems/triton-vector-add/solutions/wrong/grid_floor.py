# expect: wrong_answer
# message: never stored by a kernel
# n // BLOCK programs: the floor drops the last, partial block, so its elements are never computed.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets * sx, mask=mask)
    y = tl.load(y_ptr + offsets * sy, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x, y):
    out = torch.empty(x.shape, dtype=x.dtype)
    n = x.numel()
    add_kernel[(n // 256,)](x, y, out, n, x.stride(0), y.stride(0), BLOCK=256)
    return out
