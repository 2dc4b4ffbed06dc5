# expect: wrong_answer
# message: this problem's blocks hold at most
# The Triton tutorial's softmax: BLOCK = next_power_of_2(cols), one block holds the whole row. Right, and
# reads x only once, for every row that fits in a block; but here a block holds at most 4096 elements (on a
# GPU a whole row of 20011 would spill out of registers), and the row of 20011 becomes one block of 32768.
# Loop over the row in chunks when it does not fit.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
    e = tl.exp(x.to(tl.float32) - tl.max(x.to(tl.float32), axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    softmax_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(cols))
    return y
