# expect: wrong_answer
# message: over this test's bound
# Correct values from 16 × 16 tiles: but every tile reads its 16 rows of a and 16 columns of b across all of
# K, so a is read ⌈N/16⌉ times and b ⌈M/16⌉ times, about twice what 32 × 32 tiles read.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * sam + (start + ks)[None, :] * sak,
                    mask=(rows[:, None] < M) & ((start + ks)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (start + ks)[:, None] * sbk + cols[None, :] * sbn,
                    mask=((start + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * scm + cols[None, :] * scn, acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
    matmul_kernel[grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(), BLOCK_M=16, BLOCK_N=16, BLOCK_K=32)
    return c
