# expect: wrong_answer
# message: do not sum to 1
# The online softmax with its one subtle line left out: when a later chunk raises the running maximum, the
# sum so far was of exp(x - old maximum) and must be multiplied by exp(old - new) before the chunk's terms
# are added. Without it the sum is too large wherever the maximum grows after the first chunk.
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
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        m = tl.maximum(m, tl.max(x.to(tl.float32), axis=0))
        l += tl.sum(tl.exp(x.to(tl.float32) - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        tl.store(y_ptr + row * n_cols + cols, tl.exp(x.to(tl.float32) - m) / l, mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    softmax_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), BLOCK=512)
    return y
