# expect: runtime_error
# message: an input of the call
# Saves memory by writing exp(x - m) back over x in the first pass and normalising from there: but x is the
# caller's tensor, and a kernel that stores into its input destroys it (and, on a second call with the same
# x, computes the softmax of the exponentials).
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = float("-inf")
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        m = tl.maximum(m, tl.max(x.to(tl.float32), axis=0))
    l = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        e = tl.exp(x.to(tl.float32) - m)
        l += tl.sum(e, axis=0)
        tl.store(x_ptr + row * stride_row + cols * stride_col, e.to(x_ptr.dtype.element_ty), mask=cols < n_cols)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        e = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
        tl.store(y_ptr + row * n_cols + cols, e.to(tl.float32) / l, mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    softmax_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), BLOCK=1024)
    return y
