# expect: accepted
# 32 × 32 tiles, exactly at the traffic bound, launched in column-major order on a 1-D grid. The K loop runs
# the whole K blocks with no mask along K and then one masked step for the ragged tail (the "EVEN_K" split
# real kernels use to keep masks out of the hot loop); a K below one block runs the tail step alone.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    pid_m = tl.program_id(0) % tiles_m
    pid_n = tl.program_id(0) // tiles_m
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    row_ok = rows[:, None] < M
    col_ok = cols[None, :] < N
    a_ptrs = a_ptr + rows[:, None] * sam + ks[None, :] * sak
    b_ptrs = b_ptr + ks[:, None] * sbk + cols[None, :] * sbn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    whole = K // BLOCK_K
    for _ in range(0, whole):
        acc = tl.dot(tl.load(a_ptrs, mask=row_ok, other=0.0), tl.load(b_ptrs, mask=col_ok, other=0.0), acc)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk
    left = K - whole * BLOCK_K
    if left > 0:
        a = tl.load(a_ptrs, mask=row_ok & (ks[None, :] < left), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < left) & col_ok, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * scm + cols[None, :] * scn, acc, mask=row_ok & col_ok)


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 32),)
    matmul_kernel[grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(), BLOCK_M=32, BLOCK_N=32, BLOCK_K=16)
    return c
