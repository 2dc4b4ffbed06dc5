# expect: accepted
# Welford's update in every lane of a 512-wide block as the loop walks the row (each lane sees every 512th
# element), then the lanes' (mean, M2, count) merged with Chan's formula for many groups. One statistics pass.
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_welford(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n, eps,
                       stride_xm, stride_xn, stride_ym, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mean = tl.zeros([BLOCK], dtype=tl.float32)
    m2 = tl.zeros([BLOCK], dtype=tl.float32)
    count = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        count = count + mask.to(tl.float32)
        delta = x - mean
        mean = tl.where(mask, mean + delta / tl.maximum(count, 1.0), mean)
        m2 = tl.where(mask, m2 + delta * (x - mean), m2)
    # The lanes' statistics merged at once: the row's mean is the count-weighted mean of the lanes' means, and
    # its M2 the lanes' M2 plus each lane's count times its mean's squared distance from the row's.
    row_mean = tl.sum(count * mean, axis=0) / n
    spread = tl.where(count > 0, mean - row_mean, 0.0)
    row_m2 = tl.sum(m2 + count * spread * spread, axis=0)
    rstd = 1.0 / tl.sqrt(row_m2 / n + eps)
    tl.store(mean_ptr + row, row_mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        mask = cols < n
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
        tl.store(y_ptr + row * stride_ym + cols, ((x - row_mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


def layer_norm(x, weight, bias, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    mean = torch.empty(m, dtype=torch.float32, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    layer_norm_welford[(m,)](x, weight, bias, y, mean, rstd, n, eps, x.stride(0), x.stride(1), y.stride(0),
                             BLOCK=512)
    return y, mean, rstd
