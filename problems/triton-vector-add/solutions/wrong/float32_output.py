# expect: wrong_answer
# message: dtype
# Always allocates a float32 output: right for float32 inputs, but float16 inputs must give a float16 result.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets * sx, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offsets * sy, mask=mask).to(tl.float32)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x, y):
    out = torch.empty(x.shape, dtype=torch.float32)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, x.stride(0), y.stride(0), BLOCK=256)
    return out
