# expect: wrong_answer
# message: the host function filled it
# Lets PyTorch gather each row's target logit on the host (logits.gather) and hands the result to the
# kernel: a host-side operator, and a kernel reading memory no kernel stored. The host function only
# allocates and launches; the gather is one masked load in the kernel.
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, picked_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col,
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
    x_t = tl.load(picked_ptr + row).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, m - x_t + tl.log(l)))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    picked = logits.gather(1, target.clamp(min=0)[:, None])[:, 0]
    cross_entropy_kernel[(n,)](logits, picked, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return loss
