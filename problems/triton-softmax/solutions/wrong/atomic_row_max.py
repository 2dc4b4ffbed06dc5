# expect: runtime_error
# message: atomic operations
# Splits each long row across a 2-D grid of programs (row, chunk) and combines the chunks' maxima and sums
# with tl.atomic_max and tl.atomic_add into a per-row buffer. Atomics make the result depend on the order
# programs run in (a float sum is not associative), need the buffer zeroed on the host first, and are
# refused here: combine per-chunk statistics in a second kernel, or give each row to one program.
import torch
import triton
import triton.language as tl


@triton.jit
def row_stats_kernel(x_ptr, max_ptr, sum_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
    tl.atomic_max(max_ptr + row, tl.max(x.to(tl.float32), axis=0))


@triton.jit
def normalise_kernel(x_ptr, max_ptr, sum_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
    e = tl.exp(x.to(tl.float32) - tl.load(max_ptr + row))
    tl.atomic_add(sum_ptr + row, tl.sum(e, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e, mask=cols < n_cols)


@triton.jit
def divide_kernel(sum_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    y = tl.load(y_ptr + row * n_cols + cols, mask=cols < n_cols)
    tl.store(y_ptr + row * n_cols + cols, y / tl.load(sum_ptr + row), mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    row_max = torch.full((rows,), float("-inf"), dtype=torch.float32, device=x.device)
    row_sum = torch.zeros((rows,), dtype=torch.float32, device=x.device)
    grid = (rows, triton.cdiv(cols, 1024))
    row_stats_kernel[grid](x, row_max, row_sum, cols, x.stride(0), x.stride(1), BLOCK=1024)
    normalise_kernel[grid](x, row_max, row_sum, y, cols, x.stride(0), x.stride(1), BLOCK=1024)
    divide_kernel[grid](row_sum, y, cols, BLOCK=1024)
    return y
