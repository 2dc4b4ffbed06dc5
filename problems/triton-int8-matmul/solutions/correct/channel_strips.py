# expect: accepted
# One program per strip of 32 output channels, looping over the rows of x in tiles of 64 itself: the shape of
# a decoding kernel, where M is a handful of tokens and the weights are the traffic. The strip's 32 scales are
# loaded once for all its rows; x is read once per strip (the bound's first term) and w once per row tile.
import torch
import triton
import triton.language as tl


@triton.jit
def int8_linear_kernel(x_ptr, w_ptr, scale_ptr, y_ptr, M, N, K, sxm, sxk, swn, swk, sym, syn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    scale = tl.load(scale_ptr + cols, mask=cols < N, other=0.0)
    for first_row in range(0, M, BLOCK_M):
        rows = first_row + tl.arange(0, BLOCK_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for start in range(0, K, BLOCK_K):
            k = start + ks
            x = tl.load(x_ptr + rows[:, None] * sxm + k[None, :] * sxk, mask=(rows[:, None] < M) & (k[None, :] < K),
                        other=0.0)
            w = tl.load(w_ptr + k[:, None] * swk + cols[None, :] * swn, mask=(k[:, None] < K) & (cols[None, :] < N),
                        other=0)
            acc = tl.dot(x, w.to(x.dtype), acc, input_precision=PRECISION)
        tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, acc * scale[None, :],
                 mask=(rows[:, None] < M) & (cols[None, :] < N))


def int8_linear(x: torch.Tensor, w_q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    (M, K), N = x.shape, w_q.shape[0]
    y = torch.empty((M, N), dtype=torch.float32, device=x.device)
    int8_linear_kernel[(triton.cdiv(N, 32),)](x, w_q, scale, y, M, N, K, *x.stride(), *w_q.stride(), *y.stride(),
                                              BLOCK_M=64, BLOCK_N=32, BLOCK_K=64,
                                              PRECISION="ieee" if x.dtype == torch.float32 else "tf32")
    return y
