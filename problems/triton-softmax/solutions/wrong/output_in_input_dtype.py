# expect: wrong_answer
# message: dtype float16, expected float32
# torch.empty_like(x) allocates y in x's dtype: right for float32 inputs, but a float16 x must still give a
# float32 y (the math is float32, and so is the result the interface pins).
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride_row, stride_col, y_stride_row, y_stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = float("-inf")
    l = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x.to(tl.float32), axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x.to(tl.float32) - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        y = tl.exp(x.to(tl.float32) - m) / l
        tl.store(y_ptr + row * y_stride_row + cols * y_stride_col, y.to(y_ptr.dtype.element_ty), mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK=1024)
    return y
