# expect: wrong_answer
# message: storing x as h
# Normalises x + residual correctly, but stores the block's input x as the "updated residual" h: the stream the
# next block reads has lost the residual, every earlier block's contribution. y alone looks right.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_residual_row(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, n, eps,
                         stride_xm, stride_xn, stride_rm, stride_rn, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0)
    r = tl.load(r_ptr + row * stride_rm + cols * stride_rn, mask=mask, other=0.0)
    tl.store(h_ptr + row * n + cols, x, mask=mask)
    h = x.to(tl.float32) + r.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(h * h, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    tl.store(y_ptr + row * n + cols, (h * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm_residual(x, residual, weight, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    h = torch.empty((m, n), dtype=x.dtype, device=x.device)
    rmsnorm_residual_row[(m,)](x, residual, weight, y, h, n, eps, x.stride(0), x.stride(1),
                               residual.stride(0), residual.stride(1), BLOCK=triton.next_power_of_2(n))
    return y, h
