# expect: accepted
# Blocks of 1024 elements: fewer, larger programs; the same mask handles the ragged end.
import torch
import triton
import triton.language as tl


@triton.jit
def _add(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    i = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    keep = i < n
    tl.store(out_ptr + i, tl.load(x_ptr + i * sx, mask=keep, other=0.0) + tl.load(y_ptr + i * sy, mask=keep, other=0.0),
             mask=keep)


def add(x, y):
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)  # noqa: E731
    _add[grid](x, y, out, x.numel(), x.stride(0), y.stride(0), BLOCK=1024)
    return out
