# expect: wrong_answer
# message: stored to global memory
# The unfused way, in kernels: a softmax kernel writes every row's probabilities to an n × vocab scratch
# tensor, and a second kernel reads the target's probability back and takes -log of it. Right values, but
# the scratch is as large as the logits: n × vocab × 4 bytes stored (and, in training, kept for backward),
# where a fused kernel stores one float per row. At a 128k vocabulary that is the largest tensor of the step.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(logits_ptr, probs_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab,
                other=float("-inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(probs_ptr + row * vocab + cols, e / tl.sum(e, axis=0), mask=cols < vocab)


@triton.jit
def nll_kernel(probs_ptr, target_ptr, loss_ptr, vocab):
    row = tl.program_id(0)
    target = tl.load(target_ptr + row)
    p = tl.load(probs_ptr + row * vocab + target, mask=target != -100, other=1.0)
    tl.store(loss_ptr + row, -tl.log(p))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    probs = torch.empty((n, vocab), dtype=torch.float32, device=logits.device)
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    softmax_kernel[(n,)](logits, probs, vocab, logits.stride(0), logits.stride(1),
                         BLOCK=triton.next_power_of_2(vocab))
    nll_kernel[(n,)](probs, target, loss, vocab)
    return loss
