# expect: accepted
# Two launches: the first reduces each row to its maximum and its sum of exp(x - max) (online, one read of
# x) and stores them in a rows × 2 scratch tensor; the second reads x again with the statistics and writes y.
# The scratch is stored by a kernel before a kernel reads it, and costs 8 bytes a row each way.
import torch
import triton
import triton.language as tl


@triton.jit
def row_stats_kernel(x_ptr, stats_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.full([BLOCK], float("-inf"), tl.float32)   # a running maximum and sum per lane,
    l = tl.zeros([BLOCK], tl.float32)                 # combined across lanes only at the end
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols,
                    other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        # A lane that has seen only padding keeps m = -inf: exp(-inf - -inf) would be NaN.
        l = tl.where(m_new == float("-inf"), 0.0, l * tl.exp(m - m_new) + tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(tl.where(m == float("-inf"), 0.0, l * tl.exp(m - row_max)), axis=0)
    tl.store(stats_ptr + 2 * row, row_max)
    tl.store(stats_ptr + 2 * row + 1, row_sum)


@triton.jit
def normalise_kernel(x_ptr, stats_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_max = tl.load(stats_ptr + 2 * row)   # each row's statistics read once, by the program of the row
    row_sum = tl.load(stats_ptr + 2 * row + 1)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * n_cols + cols, tl.exp(x - row_max) / row_sum, mask=mask)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    stats = torch.empty((rows, 2), dtype=torch.float32, device=x.device)
    row_stats_kernel[(rows,)](x, stats, cols, x.stride(0), x.stride(1), BLOCK=2048)
    normalise_kernel[(rows,)](x, stats, y, cols, x.stride(0), x.stride(1), BLOCK=4096)
    return y
