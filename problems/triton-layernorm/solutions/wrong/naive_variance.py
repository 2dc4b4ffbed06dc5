# expect: wrong_answer
# message: E[x²] - E[x]²
# One pass of sum(x) and sum(x²), then var = E[x²] - E[x]²: exact in real numbers, and right on rows centred
# near 0, but for rows near 1e4 with a spread of 1 both terms are about 1e8, and float32's 24 bits keep none
# of their difference: the variance comes out noise, often negative (a NaN under the root).
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n, eps,
                      stride_xm, stride_xn, stride_ym, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    total = tl.zeros([BLOCK], dtype=tl.float32)
    squares = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=cols < n, other=0.0).to(tl.float32)
        total += x
        squares += x * x
    mean = tl.sum(total, axis=0) / n
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / n - mean * mean + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
        tl.store(y_ptr + row * stride_ym + cols, ((x - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


def layer_norm(x, weight, bias, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    mean = torch.empty(m, dtype=torch.float32, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    layer_norm_kernel[(m,)](x, weight, bias, y, mean, rstd, n, eps, x.stride(0), x.stride(1), y.stride(0),
                            BLOCK=min(1024, triton.next_power_of_2(n)))
    return y, mean, rstd
