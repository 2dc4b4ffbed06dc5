# expect: wrong_answer
# message: divide by n
# torch.var's default, the unbiased estimator: divides the squared deviations by n - 1. LayerNorm normalises by
# the biased variance (divide by n), so rstd is off by sqrt(n / (n - 1)): 0.8% on a row of 64, and a row of one
# element divides 0 by 0.
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n, eps,
                      stride_xm, stride_xn, stride_ym, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        chunk_count = tl.minimum(n - start, BLOCK).to(tl.float32)
        chunk_mean = tl.sum(x, axis=0) / chunk_count
        deviation = tl.where(mask, x - chunk_mean, 0.0)
        total = count + chunk_count
        delta = chunk_mean - mean
        mean += delta * (chunk_count / total)
        m2 += tl.sum(deviation * deviation, axis=0) + delta * delta * (count * chunk_count / total)
        count = total
    rstd = 1.0 / tl.sqrt(m2 / (n - 1) + eps)
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
