# expect: wrong_answer
# message: no kernel of this call had stored
# The statistics in PyTorch on the host, the kernel only normalising: the kernel reads mean and rstd that no
# kernel computed. Besides breaking the rule, it reads x three times (two reductions, then the kernel) and
# launches four kernels where one does.
import torch
import triton
import triton.language as tl


@triton.jit
def normalise_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n,
                     stride_xm, stride_xn, stride_ym, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
        tl.store(y_ptr + row * stride_ym + cols, ((x - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


def layer_norm(x, weight, bias, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    x32 = x.float()
    mean = x32.mean(dim=1)
    rstd = torch.rsqrt(x32.var(dim=1, unbiased=False) + eps)
    normalise_kernel[(m,)](x, weight, bias, y, mean, rstd, n, x.stride(0), x.stride(1), y.stride(0), BLOCK=256)
    return y, mean, rstd
