# expect: runtime_error
# message: before its start
# Forgets ignore_index: a padded position's target is -100, and the kernel reads logits[row, -100], an
# address 100 elements before the row. For row 0 that is before the logits begin (an illegal memory access
# on a GPU); for any other row it is the previous row's data, a loss for a position that must count 0.
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
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
    x_t = tl.load(logits_ptr + row * stride_row + target * stride_col).to(tl.float32)
    tl.store(loss_ptr + row, m - x_t + tl.log(l))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return loss
