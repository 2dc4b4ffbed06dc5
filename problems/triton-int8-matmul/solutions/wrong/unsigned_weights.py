# expect: wrong_answer
# message: reading w_q as uint8
# Converts the weights through uint8, as code that unpacks raw bytes does: -1 becomes 255 and every negative
# weight is off by 256. int8 is signed; convert it to the dot's dtype directly.
import torch
import triton
import triton.language as tl


@triton.jit
def int8_linear_kernel(x_ptr, w_ptr, scale_ptr, y_ptr, M, N, K, sxm, sxk, swn, swk, sym, syn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + rows[:, None] * sxm + (start + ks)[None, :] * sxk,
                    mask=(rows[:, None] < M) & ((start + ks)[None, :] < K), other=0.0)
        w = tl.load(w_ptr + (start + ks)[:, None] * swk + cols[None, :] * swn,
                    mask=((start + ks)[:, None] < K) & (cols[None, :] < N), other=0)
        acc = tl.dot(x, w.to(tl.uint8).to(x.dtype), acc, input_precision=PRECISION)
    scale = tl.load(scale_ptr + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, acc * scale[None, :],
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def int8_linear(x: torch.Tensor, w_q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    (M, K), N = x.shape, w_q.shape[0]
    y = torch.empty((M, N), dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    int8_linear_kernel[grid](x, w_q, scale, y, M, N, K, *x.stride(), *w_q.stride(), *y.stride(), BLOCK_M=64,
                             BLOCK_N=64, BLOCK_K=32, PRECISION="ieee" if x.dtype == torch.float32 else "tf32")
    return y
