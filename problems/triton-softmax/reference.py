import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    # One program per row. Pass 1 reads the row once, chunk by chunk, keeping a running maximum m and a running
    # sum l of exp(x - m): when the maximum grows, the sum so far is rescaled by exp(m_old - m_new).
    row = tl.program_id(0)
    x_row = x_ptr + row.to(tl.int64) * stride_row
    y_row = y_ptr + row.to(tl.int64) * n_cols
    m = tl.full([], float("-inf"), tl.float32)
    l = tl.zeros([], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols * stride_col, mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    # Pass 2 reads the row again and writes each probability once.
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols * stride_col, mask=mask, other=float("-inf")).to(tl.float32)
        tl.store(y_row + cols, tl.exp(x - m) / l, mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    softmax_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), BLOCK=2048)
    return y
