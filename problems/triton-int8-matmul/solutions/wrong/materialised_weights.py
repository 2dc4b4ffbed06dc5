# expect: wrong_answer
# message: over this test's bound
# Converts w_q to a float16 copy with a kernel of its own (exact: -128..127 are float16 numbers), then runs a
# float16 matmul on the copy and scales the accumulator. The values are right, but the copy is written once
# (2 bytes a weight) and read once per tile row (2 bytes again): three times the traffic of reading the int8
# weights where they are, which undoes what weight-only quantisation is for.
import torch
import triton
import triton.language as tl


@triton.jit
def to_half_kernel(w_ptr, out_ptr, N, K, swn, swk, BLOCK: tl.constexpr):
    n = tl.program_id(0)
    ks = tl.arange(0, BLOCK)
    for start in range(0, K, BLOCK):
        w = tl.load(w_ptr + n * swn + (start + ks) * swk, mask=(start + ks) < K, other=0)
        tl.store(out_ptr + n * K + start + ks, w.to(tl.float16), mask=(start + ks) < K)


@triton.jit
def matmul_kernel(x_ptr, w_ptr, scale_ptr, y_ptr, M, N, K, sxm, sxk, sym, syn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + rows[:, None] * sxm + (start + ks)[None, :] * sxk,
                    mask=(rows[:, None] < M) & ((start + ks)[None, :] < K), other=0.0)
        w = tl.load(w_ptr + cols[None, :] * K + (start + ks)[:, None],
                    mask=((start + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(x.to(tl.float32), w.to(tl.float32), acc, input_precision="ieee")
    scale = tl.load(scale_ptr + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, acc * scale[None, :],
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def int8_linear(x: torch.Tensor, w_q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    (M, K), N = x.shape, w_q.shape[0]
    w16 = torch.empty((N, K), dtype=torch.float16, device=x.device)
    to_half_kernel[(N,)](w_q, w16, N, K, *w_q.stride(), BLOCK=128)
    y = torch.empty((M, N), dtype=torch.float32, device=x.device)
    matmul_kernel[(triton.cdiv(M, 64), triton.cdiv(N, 64))](x, w16, scale, y, M, N, K, *x.stride(), *y.stride(),
                                                            BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return y
