import torch
import triton
import triton.language as tl


@triton.jit
def int8_linear_kernel(x_ptr, w_ptr, scale_ptr, y_ptr, M, N, K,
                       stride_xm, stride_xk, stride_wn, stride_wk, stride_ym, stride_yn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * tiles_n
    first_m = (pid // in_group) * GROUP_M
    group_m = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)  # output channels: rows of w
    ks = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rows[:, None] * stride_xm + ks[None, :] * stride_xk
    w_ptrs = w_ptr + ks[:, None] * stride_wk + cols[None, :] * stride_wn  # a BLOCK_K × BLOCK_N slab of w.T
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        x = tl.load(x_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < left), other=0.0)
        w = tl.load(w_ptrs, mask=(ks[:, None] < left) & (cols[None, :] < N), other=0)  # int8: 1 byte each
        # -128..127 are exact in float16 and float32: the dot multiplies the integers themselves.
        acc = tl.dot(x, w.to(x.dtype), acc, input_precision=PRECISION)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
    # The scale belongs to the output channel, constant along K: it factors out of the sum, so the float32
    # accumulator is scaled once, with one load of BLOCK_N scales per program.
    scale = tl.load(scale_ptr + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yn, acc * scale[None, :],
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def int8_linear(x: torch.Tensor, w_q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    M, K = x.shape
    N = w_q.shape[0]
    y = torch.empty((M, N), dtype=torch.float32, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 64, 64, 32, 8
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    # float32 x: full float32 products ("ieee"); a GPU's default for float32 is TF32, 10-bit mantissas.
    precision = "ieee" if x.dtype == torch.float32 else "tf32"
    int8_linear_kernel[grid](x, w_q, scale, y, M, N, K, x.stride(0), x.stride(1), w_q.stride(0), w_q.stride(1),
                             y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                             GROUP_M=GROUP_M, PRECISION=precision)
    return y
