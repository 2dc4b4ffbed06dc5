# expect: runtime_error
# message: atomic operations
# Returns what the training loop wants, the mean over counted rows, by having every program tl.atomic_add
# its loss and its count into two scalars. Atomics make the float sum depend on the order programs finish
# in (not reproducible from run to run), need zeroed buffers from the host, and are refused here; the
# interface asks for the per-row losses, which no program needs to combine.
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, total_ptr, count_ptr, vocab, stride_row, stride_col,
                         BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = float("-inf")
    l = 0.0
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab,
                    other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    target = tl.load(target_ptr + row)
    counted = target != -100
    x_t = tl.load(logits_ptr + row * stride_row + target * stride_col, mask=counted, other=0.0).to(tl.float32)
    tl.atomic_add(total_ptr, tl.where(counted, m - x_t + tl.log(l), 0.0))
    tl.atomic_add(count_ptr, tl.where(counted, 1.0, 0.0))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    total = torch.zeros((), dtype=torch.float32, device=logits.device)
    count = torch.zeros((), dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, total, count, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return total / count
