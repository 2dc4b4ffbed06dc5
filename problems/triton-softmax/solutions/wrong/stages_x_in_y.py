# expect: wrong_answer
# message: stored to global memory
# Reads x only once: the first pass copies each chunk into y as float32 while it tracks the running maximum
# and sum, and the second pass normalises y in place. But y is global memory too: it is stored twice and
# read once, more traffic than the online softmax's second read of x, and an output is written once.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = float("-inf")
    l = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols,
                    other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
        tl.store(y_ptr + row * n_cols + cols, x, mask=cols < n_cols)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(y_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf"))
        tl.store(y_ptr + row * n_cols + cols, tl.exp(x - m) / l, mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    softmax_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), BLOCK=1024)
    return y
