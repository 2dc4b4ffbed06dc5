# expect: wrong_answer
# message: never stored by a kernel
# problem: triton-vector-add
# Takes the kit's wrappers off the interpreter's loads and stores (the class's own methods show through once the
# instance's are deleted), so nothing is bounds-checked or counted, then reads x twice: the stores the kit never
# saw leave the output unwritten as far as it knows, which is refused before any count is read.
import torch
import triton
import triton.language as tl
from triton.runtime import interpreter

for name in ("create_masked_load", "create_masked_store"):
    interpreter.interpreter_builder.__dict__.pop(name, None)


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
