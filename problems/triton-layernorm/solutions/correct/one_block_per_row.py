# expect: accepted
# The whole row in one block (BLOCK = the next power of two ≥ n, up to 4096 here): x is loaded once and the
# textbook two passes, mean and then the mean squared deviation, run over registers, not memory.
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_row(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n, eps,
                   stride_xm, stride_xn, stride_ym, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    centred = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    tl.store(y_ptr + row * stride_ym + cols, (centred * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


def layer_norm(x, weight, bias, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    mean = torch.empty(m, dtype=torch.float32, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    block = triton.next_power_of_2(n)
    if block * x.element_size() > 65536:  # past 64 KB a row no longer fits a block's registers
        raise ValueError(f"rows of {n} elements are too long for one block")
    layer_norm_row[(m,)](x, weight, bias, y, mean, rstd, n, eps, x.stride(0), x.stride(1), y.stride(0), BLOCK=block)
    return y, mean, rstd
