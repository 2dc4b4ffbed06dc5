# expect: wrong_answer
# message: the host function filled it
# Dequantises on the host with PyTorch, w = w_q.float() * scale[:, None], and hands the float weights to a
# plain matmul kernel: the host computed, and the float32 copy is four times the bytes of w_q, written and read
# again, which is the whole saving of int8 weights lost.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(x_ptr, w_ptr, y_ptr, M, N, K, sxm, sxk, swn, swk, sym, syn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + rows[:, None] * sxm + (start + ks)[None, :] * sxk,
                    mask=(rows[:, None] < M) & ((start + ks)[None, :] < K), other=0.0)
        w = tl.load(w_ptr + (start + ks)[:, None] * swk + cols[None, :] * swn,
                    mask=((start + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(x.to(tl.float32), w, acc, input_precision="ieee")
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


def int8_linear(x: torch.Tensor, w_q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    (M, K), N = x.shape, w_q.shape[0]
    w = w_q.float() * scale[:, None]
    y = torch.empty((M, N), dtype=torch.float32, device=x.device)
    matmul_kernel[(triton.cdiv(M, 64), triton.cdiv(N, 64))](x, w, y, M, N, K, *x.stride(), *w.stride(), *y.stride(),
                                                             BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return y
