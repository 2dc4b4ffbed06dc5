# expect: wrong_answer
# message: do not sum to 1
# A tile of ROWS × BLOCK, reduced along axis 0: tl.max(x, axis=0) is the maximum of each column of the tile,
# across rows, not of each row. The running statistics end up per column position, mixing the rows of the
# tile, and no row of y sums to 1. Along each row is axis 1 of a [ROWS, BLOCK] tile.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, ROWS: tl.constexpr,
                   BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    m = tl.full([BLOCK], -1e30, tl.float32)
    l = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask,
                    other=-1e30).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[None, :]), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask,
                    other=-1e30).to(tl.float32)
        tl.store(y_ptr + rows[:, None] * n_cols + cols[None, :], tl.exp(x - m[None, :]) / l[None, :], mask=mask)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    softmax_kernel[(triton.cdiv(rows, 4),)](x, y, rows, cols, x.stride(0), x.stride(1), ROWS=4, BLOCK=512)
    return y
