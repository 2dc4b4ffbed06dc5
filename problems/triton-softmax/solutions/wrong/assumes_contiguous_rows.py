# expect: wrong_answer
# message: as if it were contiguous
# Computes each row's start as row × n_cols and steps by 1 along it: right for a contiguous x, the only kind
# the sample tests pass. Padded rows start further apart (x.stride(0) > cols), a transposed view keeps its
# elements elsewhere (x.stride() is (1, rows)): the kernel stays inside x's storage but reads the wrong
# numbers. Pass x.stride(0) and x.stride(1).
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = float("-inf")
    l = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + row * n_cols + cols, tl.exp(x - m) / l, mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    softmax_kernel[(rows,)](x, y, cols, BLOCK=1024)
    return y
