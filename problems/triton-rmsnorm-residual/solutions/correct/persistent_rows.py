# expect: accepted
# A persistent grid: at most 16 programs, each striding over the rows (row = pid, pid + 16, ...), as kernels
# sized to the number of SMs do. Each row in chunks of 512: h stored and squared in pass 1, read back in pass 2.
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_residual_persistent(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, m, n, eps,
                                stride_xm, stride_xn, stride_rm, stride_rn, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    for row in range(tl.program_id(0), m, tl.num_programs(0)):
        squares = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, n, BLOCK):
            cols = start + offsets
            mask = cols < n
            x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
            r = tl.load(r_ptr + row * stride_rm + cols * stride_rn, mask=mask, other=0.0).to(tl.float32)
            h = x + r
            tl.store(h_ptr + row * n + cols, h.to(h_ptr.dtype.element_ty), mask=mask)
            squares += h * h
        rstd = tl.rsqrt(tl.sum(squares, axis=0) / n + eps)
        for start in range(0, n, BLOCK):
            cols = start + offsets
            mask = cols < n
            h = tl.load(h_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
            tl.store(y_ptr + row * n + cols, (h * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm_residual(x, residual, weight, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    h = torch.empty((m, n), dtype=x.dtype, device=x.device)
    rmsnorm_residual_persistent[(min(m, 16),)](x, residual, weight, y, h, m, n, eps, x.stride(0), x.stride(1),
                                               residual.stride(0), residual.stride(1), BLOCK=512)
    return y, h
