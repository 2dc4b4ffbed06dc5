# expect: runtime_error
# message: past its end
# Chunks of 256 columns with no mask: right while n is a multiple of 256, but a row of 1500 ends 36 columns into
# its last chunk, and the loads of weight and bias run past their ends (on a GPU, an illegal memory access or
# silently wrong statistics).
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
        x = tl.load(x_ptr + row * stride_xm + (start + offsets) * stride_xn).to(tl.float32)
        chunk_mean = tl.sum(x, axis=0) / BLOCK
        deviation = x - chunk_mean
        total = count + BLOCK
        delta = chunk_mean - mean
        mean += delta * (BLOCK / total)
        m2 += tl.sum(deviation * deviation, axis=0) + delta * delta * (count * BLOCK / total)
        count = total
    rstd = 1.0 / tl.sqrt(m2 / n + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn).to(tl.float32)
        w = tl.load(w_ptr + cols).to(tl.float32)
        b = tl.load(b_ptr + cols).to(tl.float32)
        tl.store(y_ptr + row * stride_ym + cols, ((x - mean) * rstd * w + b).to(y_ptr.dtype.element_ty))


def layer_norm(x, weight, bias, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    mean = torch.empty(m, dtype=torch.float32, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    layer_norm_kernel[(m,)](x, weight, bias, y, mean, rstd, n, eps, x.stride(0), x.stride(1), y.stride(0),
                            BLOCK=256)
    return y, mean, rstd
