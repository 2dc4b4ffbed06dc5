# expect: runtime_error
# message: outside every tensor passed
# problem: triton-vector-add
# Keeps a tensor of its own (here filled on the host, as a memo of earlier answers would be) and has the kernel
# read it through pointer arithmetic from an argument: memory no launch was passed is an illegal access.
import torch
import triton
import triton.language as tl

_kept = torch.zeros(1 << 16)


@triton.jit
def add_kernel(x_ptr, out_ptr, n, distance, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + distance + offsets, mask=mask), mask=mask)


def add(x, y):
    out = torch.empty(x.shape, dtype=x.dtype)
    distance = (_kept.data_ptr() - x.data_ptr()) // x.element_size()
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), distance, BLOCK=256)
    return out
