# expect: wrong_answer
# message: no kernel of this call had stored
# The residual add in PyTorch on the host, the kernel only normalising h: h is computed outside any kernel, and
# the fusion is lost. Unfused, h is written by one kernel and read back by the next: a round trip through
# memory of M·N elements that the fused kernel never makes, and one launch more.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(h_ptr, w_ptr, y_ptr, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    squares = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        h = tl.load(h_ptr + row * n + cols, mask=cols < n, other=0.0).to(tl.float32)
        squares += h * h
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / n + eps)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        h = tl.load(h_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        tl.store(y_ptr + row * n + cols, (h * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm_residual(x, residual, weight, eps):
    m, n = x.shape
    h = x + residual
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    rmsnorm_kernel[(m,)](h, weight, y, n, eps, BLOCK=min(1024, triton.next_power_of_2(n)))
    return y, h
