# expect: runtime_error
# message: an input of the call
# Liger Kernel's trick for training: once a row's logsumexp is known, overwrite its logits with the gradient
# softmax(x) - onehot(t), so backward needs no n × vocab buffer of its own. It saves memory when the caller
# has agreed to give the logits up; this interface has not, and a kernel must never store into an input.
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
    counted = target != -100
    x_t = tl.load(logits_ptr + row * stride_row + target * stride_col, mask=counted, other=0.0).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(counted, m - x_t + tl.log(l), 0.0))
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab, other=0.0)
        grad = tl.exp(x.to(tl.float32) - m) / l - tl.where(cols == target, 1.0, 0.0)
        grad = tl.where(counted, grad, 0.0)
        tl.store(logits_ptr + row * stride_row + cols * stride_col, grad.to(x.dtype), mask=cols < vocab)


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return loss
