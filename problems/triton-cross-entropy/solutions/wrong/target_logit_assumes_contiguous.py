# expect: wrong_answer
# message: as if the logits were contiguous
# Streams each row through its strides, then gathers the target's logit at row × vocab + target, the address
# it has in a contiguous matrix. With a padded vocabulary (rows further apart than vocab) or transposed
# logits that element belongs to another row (or another class): the loss is wrong, and nothing crashes.
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
    x_t = tl.load(logits_ptr + row * vocab + target, mask=target != -100, other=0.0).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, m - x_t + tl.log(l)))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return loss
