# expect: wrong_answer
# message: over this test's bound
# The textbook logsumexp: one pass for the row's maximum, a second for sum(exp(x - max)). Right, but the
# logits, by far the largest tensor a language model's loss reads, cross from global memory twice; the
# online logsumexp reads them once, rescaling its running sum whenever the maximum grows.
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = float("-inf")
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab, other=float("-inf"))
        m = tl.maximum(m, tl.max(x.to(tl.float32), axis=0))
    l = 0.0
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab, other=float("-inf"))
        l += tl.sum(tl.exp(x.to(tl.float32) - m), axis=0)
    target = tl.load(target_ptr + row)
    x_t = tl.load(logits_ptr + row * stride_row + target * stride_col, mask=target != -100, other=0.0)
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, m - x_t.to(tl.float32) + tl.log(l)))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return loss
