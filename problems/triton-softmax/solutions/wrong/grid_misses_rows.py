# expect: wrong_answer
# message: never stored by a kernel
# Four rows per program, but the grid is rows // 4 programs: when the number of rows is not a multiple of 4,
# the last few rows belong to no program and y keeps whatever torch.empty left there. triton.cdiv(rows, 4).
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col, ROWS: tl.constexpr,
                   BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < n_rows
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
    softmax_kernel[(rows // 4,)](x, y, rows, cols, x.stride(0), x.stride(1), ROWS=4, BLOCK=1024)
    return y
