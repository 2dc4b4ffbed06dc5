# expect: accepted
# The whole row in one block (BLOCK = the next power of two ≥ n, at most 4096 here): x, residual and weight are
# loaded once, h stays in registers between the sum of squares and the scaling, and nothing is read back.
# The statistics come from h in float32 before it is rounded to the stored dtype, which is as good.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_residual_row(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, n, eps,
                         stride_xm, stride_xn, stride_rm, stride_rn, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row * stride_rm + cols * stride_rn, mask=mask, other=0.0).to(tl.float32)
    h = x + r
    tl.store(h_ptr + row * n + cols, h.to(h_ptr.dtype.element_ty), mask=mask)
    rstd = tl.rsqrt(tl.sum(h * h, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    tl.store(y_ptr + row * n + cols, (h * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm_residual(x, residual, weight, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    h = torch.empty((m, n), dtype=x.dtype, device=x.device)
    block = triton.next_power_of_2(n)
    if block * 4 > 65536:  # past 64 KB of float32 a row no longer fits a block's registers
        raise ValueError(f"rows of {n} elements are too long for one block")
    rmsnorm_residual_row[(m,)](x, residual, weight, y, h, n, eps, x.stride(0), x.stride(1),
                               residual.stride(0), residual.stride(1), BLOCK=block)
    return y, h
