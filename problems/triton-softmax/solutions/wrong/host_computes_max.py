# expect: wrong_answer
# message: the host function filled it
# Lets PyTorch find each row's maximum on the host and passes it to the kernel, which then needs only the
# sum's pass and the write. But the host function may only allocate, take views and launch: x.amax is an
# extra read of x, outside the kernels, and the kernel reads memory no kernel stored.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, max_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.load(max_ptr + row).to(tl.float32)
    l = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        l += tl.sum(tl.exp(x.to(tl.float32) - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        tl.store(y_ptr + row * n_cols + cols, tl.exp(x.to(tl.float32) - m) / l, mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    row_max = x.amax(dim=1)
    softmax_kernel[(rows,)](x, row_max, y, cols, x.stride(0), x.stride(1), BLOCK=1024)
    return y
