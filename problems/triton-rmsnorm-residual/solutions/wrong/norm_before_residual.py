# expect: wrong_answer
# message: normalising x before adding the residual
# Post-norm order inside a pre-norm block: normalises x and adds the residual only to the stream h. A pre-norm
# decoder block computes h = x + residual first and normalises h, so the next sublayer sees the whole stream.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_residual_kernel(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, n, eps,
                            stride_xm, stride_xn, stride_rm, stride_rn, BLOCK: tl.constexpr):
    # One program per row, walked in chunks of BLOCK columns. y and h are allocated contiguous (row stride n).
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    h_row = h_ptr + row * n
    # Pass 1: h = x + residual, stored in the input dtype (the residual stream the next block reads), and the
    # sum of its squares, in float32 whatever the dtype.
    squares = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0)
        r = tl.load(r_ptr + row * stride_rm + cols * stride_rn, mask=mask, other=0.0)
        h = (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
        tl.store(h_row + cols, h, mask=mask)
        x = x.to(tl.float32)
        squares += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / n + eps)
    # Pass 2: read back the h this program stored (one tensor, where recomputing it would read two) and scale.
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        tl.store(y_ptr + row * n + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm_residual(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    h = torch.empty((m, n), dtype=x.dtype, device=x.device)
    block = min(1024, triton.next_power_of_2(n))
    rmsnorm_residual_kernel[(m,)](x, residual, weight, y, h, n, eps, x.stride(0), x.stride(1),
                                  residual.stride(0), residual.stride(1), BLOCK=block)
    return y, h
