# expect: accepted
# Picks the target's logit up while streaming the row: the chunk that holds column t contributes
# sum(where(cols == t, x, 0)), every other chunk 0, so no separate gather (and 8 bytes a row fewer loaded,
# the target logit coming with its chunk). An ignored row (t = -100) matches no column.
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    target = tl.load(target_ptr + row)
    m = float("-inf")
    l = 0.0
    x_t = 0.0
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab,
                    other=float("-inf")).to(tl.float32)
        x_t += tl.sum(tl.where(cols == target, x, 0.0), axis=0)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    loss = m + tl.log(l) - x_t
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, loss))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return loss
