# expect: wrong_answer
# message: exp overflows
# logsumexp as log(sum(exp(x))) in one pass with no maximum to track: right for logits of a few units, but
# exp(89) is inf in float32, and a row of logits far below zero sums to 0 and gives log(0) = -inf.
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = 0.0
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab, other=float("-inf"))
        total += tl.sum(tl.exp(x.to(tl.float32)), axis=0)
    target = tl.load(target_ptr + row)
    x_t = tl.load(logits_ptr + row * stride_row + target * stride_col, mask=target != -100, other=0.0)
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, tl.log(total) - x_t.to(tl.float32)))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return loss
