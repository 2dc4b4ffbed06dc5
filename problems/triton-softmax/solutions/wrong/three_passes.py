# expect: wrong_answer
# message: over this test's bound
# The textbook three passes over each row: one for the maximum, one for the sum of exp(x - max), one to write.
# Right, but x crosses from global memory three times where the online softmax needs two (it folds the
# maximum into the sum's pass, rescaling the sum whenever the maximum grows); softmax is bound by memory
# traffic, so that is half as slow again.
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
        l += tl.sum(tl.exp(x.to(tl.float32) - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        tl.store(y_ptr + row * n_cols + cols, tl.exp(x.to(tl.float32) - m) / l, mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    softmax_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), BLOCK=1024)
    return y
