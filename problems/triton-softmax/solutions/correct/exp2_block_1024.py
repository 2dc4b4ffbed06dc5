# expect: accepted
# The online softmax in base 2, as FlashAttention's kernels write it: exp(d) = exp2(d · log2(e)), exp2 being
# the GPU's native instruction. The constant multiplies the difference x - m, never x alone: x · log2(e)
# rounds to the float32 grid of x's magnitude (about 5e-4 near 10^4), and the subtraction after it would keep
# that error. Smaller chunks (1024) and the reciprocal of the sum multiplied in.
import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.full([], float("-inf"), tl.float32)
    l = tl.zeros([], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        x = x.to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp2((m - m_new) * LOG2E) + tl.sum(tl.exp2((x - m_new) * LOG2E), axis=0)
        m = m_new
    inverse = 1.0 / l
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        y = tl.exp2((x.to(tl.float32) - m) * LOG2E) * inverse
        tl.store(y_ptr + row * n_cols + cols, y, mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    softmax_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), BLOCK=1024)
    return y
