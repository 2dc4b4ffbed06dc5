# expect: runtime_error
# message: an input of the call
# Updates the residual stream in place, as some inference engines' fused kernels do (vLLM's
# fused_add_rms_norm): h is written over the residual tensor, which is returned as h. Here h is an output of its
# own, and the caller's residual must stay as it was given.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_residual_kernel(x_ptr, r_ptr, w_ptr, y_ptr, n, eps,
                            stride_xm, stride_xn, stride_rm, stride_rn, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    r_row = r_ptr + row * stride_rm
    squares = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0)
        r = tl.load(r_row + cols * stride_rn, mask=mask, other=0.0)
        h = (x.to(tl.float32) + r.to(tl.float32)).to(r_ptr.dtype.element_ty)
        tl.store(r_row + cols * stride_rn, h, mask=mask)
        h = h.to(tl.float32)
        squares += h * h
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / n + eps)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        h = tl.load(r_row + cols * stride_rn, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        tl.store(y_ptr + row * n + cols, (h * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm_residual(x, residual, weight, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    rmsnorm_residual_kernel[(m,)](x, residual, weight, y, n, eps, x.stride(0), x.stride(1),
                                  residual.stride(0), residual.stride(1), BLOCK=min(1024, triton.next_power_of_2(n)))
    return y, residual
