# expect: wrong_answer
# message: report
# problem: triton-vector-add
# Subtler than taking every wrapper off: only the loads go uncounted, so the stores still add up to the output's
# size while x is read twice. A count of loads below the inputs' own bytes is one no kernel that reads its
# inputs can report.
import torch
import triton
import triton.language as tl
from triton.runtime import interpreter

interpreter.interpreter_builder.__dict__.pop("create_masked_load", None)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets * sx, mask=mask) + tl.load(x_ptr + offsets * sx, mask=mask)
    tl.store(out_ptr + offsets, x * 0.5 + tl.load(y_ptr + offsets * sy, mask=mask), mask=mask)


def add(x, y):
    out = torch.empty(x.shape, dtype=x.dtype)
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), x.stride(0), y.stride(0), BLOCK=256)
    return out
