# expect: wrong_answer
# message: over this test's bound
# Right values, but each program loads its block of x twice (once to add, once more "to be safe"): twice the
# reads a vector add needs, which the traffic bound refuses.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets * sx, mask=mask)
    again = tl.load(x_ptr + offsets * sx, mask=mask)
    y = tl.load(y_ptr + offsets * sy, mask=mask)
    tl.store(out_ptr + offsets, (x + again) * 0.5 + y, mask=mask)


def add(x, y):
    out = torch.empty(x.shape, dtype=x.dtype)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, x.stride(0), y.stride(0), BLOCK=256)
    return out
