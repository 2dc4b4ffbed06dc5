# expect: accepted
# The Triton tutorial's kernel where a whole row fits in one block: the row is read once, held on chip, and
# written once (half the loads of two passes). Rows longer than FITS = 4096 fall back to the two-pass online
# softmax in chunks of FITS, since no block here may hold more than 4096 elements (a GPU's registers).
import torch
import triton
import triton.language as tl

FITS = 4096


@triton.jit
def whole_row_kernel(x_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=mask, other=float("-inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def chunked_kernel(x_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
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
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols,
                    other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + row * n_cols + cols, tl.exp(x - m) / l, mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = x.new_empty((rows, cols), dtype=torch.float32)
    if cols <= FITS:
        whole_row_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(cols))
    else:
        chunked_kernel[(rows,)](x, y, cols, x.stride(0), x.stride(1), BLOCK=FITS)
    return y
