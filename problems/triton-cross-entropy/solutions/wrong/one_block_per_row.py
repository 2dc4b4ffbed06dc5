# expect: wrong_answer
# message: this problem's blocks hold at most
# Loads each row's whole vocabulary into one block of next_power_of_2(vocab): right, and the fewest loads,
# while a row fits; but here a block holds at most 4096 elements (on a GPU a longer row spills out of
# registers), and a vocabulary of 20011 becomes one block of 32768. Loop over the row in chunks.
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab,
                other=float("-inf")).to(tl.float32)
    target = tl.load(target_ptr + row)
    m = tl.max(x, axis=0)
    loss = m + tl.log(tl.sum(tl.exp(x - m), axis=0)) - tl.sum(tl.where(cols == target, x, 0.0), axis=0)
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, loss))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1),
                               BLOCK=triton.next_power_of_2(vocab))
    return loss
