# expect: accepted
# A persistent kernel: a fixed number of programs, each looping over every num_programs-th block.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    first, step = tl.program_id(0), tl.num_programs(0)
    for block in range(first, tl.cdiv(n, BLOCK), step):
        offsets = block * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        a = tl.load(x_ptr + offsets * sx, mask=mask)
        b = tl.load(y_ptr + offsets * sy, mask=mask)
        tl.store(out_ptr + offsets, a + b, mask=mask)


def add(x, y):
    n = x.numel()
    out = x.new_empty(n)
    add_kernel[(min(8, triton.cdiv(n, 128)),)](x, y, out, n, x.stride(0), y.stride(0), BLOCK=128)
    return out
