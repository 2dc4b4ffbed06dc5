# expect: runtime_error
# message: past its end
# Chunks of 256 with no mask: right while n is a multiple of 256, but a row of 1500 ends partway through its
# last chunk, and the last row's loads (and every row's load of weight) run past the end of the tensor.
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
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn)
        r = tl.load(r_ptr + row * stride_rm + cols * stride_rn)
        h = (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
        tl.store(h_row + cols, h)
        h = h.to(tl.float32)
        squares += h * h
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / n + eps)
    # Pass 2: read back the h this program stored (one tensor, where recomputing it would read two) and scale.
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        h = tl.load(h_row + cols).to(tl.float32)
        w = tl.load(w_ptr + cols).to(tl.float32)
        tl.store(y_ptr + row * n + cols, (h * rstd * w).to(y_ptr.dtype.element_ty))


def rmsnorm_residual(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    h = torch.empty((m, n), dtype=x.dtype, device=x.device)
    block = 256
    rmsnorm_residual_kernel[(m,)](x, residual, weight, y, h, n, eps, x.stride(0), x.stride(1),
                                  residual.stride(0), residual.stride(1), BLOCK=block)
    return y, h
