import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n, eps,
                      stride_xm, stride_xn, stride_ym, stride_yn, BLOCK: tl.constexpr):
    # One program per row; the row is walked in chunks of BLOCK columns, so any n works.
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_xm
    y_row = y_ptr + row * stride_ym
    offsets = tl.arange(0, BLOCK)
    # Pass 1: each chunk's exact mean and sum of squared deviations (two-pass over the chunk, in registers),
    # merged into the running statistics of the row so far (Chan et al.): no E[x²] - E[x]² cancellation.
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        chunk_count = tl.minimum(n - start, BLOCK).to(tl.float32)
        chunk_mean = tl.sum(x, axis=0) / chunk_count
        deviation = tl.where(mask, x - chunk_mean, 0.0)
        chunk_m2 = tl.sum(deviation * deviation, axis=0)
        total = count + chunk_count
        delta = chunk_mean - mean
        mean += delta * (chunk_count / total)
        m2 += chunk_m2 + delta * delta * (count * chunk_count / total)
        count = total
    rstd = 1.0 / tl.sqrt(m2 / n + eps)  # the biased variance (divided by n), eps inside the root
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    # Pass 2: normalise, scale and shift; x is read a second time, weight and bias once.
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_row + cols * stride_yn, y.to(y_ptr.dtype.element_ty), mask=mask)


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    mean = torch.empty(m, dtype=torch.float32, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    block = min(1024, triton.next_power_of_2(n))
    layer_norm_kernel[(m,)](x, weight, bias, y, mean, rstd, n, eps, x.stride(0), x.stride(1),
                            y.stride(0), y.stride(1), BLOCK=block)
    return y, mean, rstd
