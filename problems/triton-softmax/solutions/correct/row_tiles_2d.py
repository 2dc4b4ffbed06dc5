# expect: accepted
# Several rows per program: a ROWS × BLOCK tile, reduced along axis 1 (along each row), with one running
# maximum and sum per row of the tile. Short rows waste fewer lanes this way; rows past the last are masked.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col,
                        ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < n_rows
    # A row past the last gets maximum 0 instead of -inf, so its lanes compute exp(-inf) = 0, never NaN.
    m = tl.where(row_ok, float("-inf"), 0.0)
    l = tl.zeros([ROWS], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = row_ok[:, None] & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask,
                    other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), axis=1)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = row_ok[:, None] & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask,
                    other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + rows[:, None] * n_cols + cols[None, :], tl.exp(x - m[:, None]) / l[:, None], mask=mask)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    ROWS = 4
    softmax_rows_kernel[(triton.cdiv(rows, ROWS),)](x, y, rows, cols, x.stride(0), x.stride(1),
                                                    ROWS=ROWS, BLOCK=1024)
    return y
