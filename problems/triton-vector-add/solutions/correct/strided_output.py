# expect: accepted
# Passes the output's stride too, so the kernel would write into any 1-D layout it is given.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x, y, out, n, sx, sy, so, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    idx = pid * BLOCK + tl.arange(0, BLOCK)
    m = idx < n
    tl.store(out + idx * so, tl.load(x + idx * sx, mask=m) + tl.load(y + idx * sy, mask=m), mask=m)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], dtype=x.dtype)
    add_kernel[(triton.cdiv(x.shape[0], 512),)](x, y, out, x.shape[0], x.stride(0), y.stride(0), out.stride(0),
                                                BLOCK=512)
    return out
