# expect: wrong_answer
# message: the host function filled it
# Makes both operands contiguous on the host so that the kernel sees one layout. For a transposed b that is
# a full copy of b made by PyTorch, not by a kernel: the host function computed, and the copy costs a read
# and a write of b that the strides would have saved. Pass the strides instead.
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
    a, b = a.contiguous(), b.contiguous()  # one layout for the kernel: a copy the host makes
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    matmul_kernel[grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c
