# expect: runtime_error
# message: past its end
# Walks the vocabulary in chunks of BLOCK with no mask: a vocabulary that is not a multiple of BLOCK is read
# past the row's end in its last chunk, which for the last row is past the end of the logits.
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
        x = tl.load(logits_ptr + row * stride_row + cols * stride_col).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    target = tl.load(target_ptr + row)
    x_t = tl.load(logits_ptr + row * stride_row + target * stride_col, mask=target != -100, other=0.0)
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, m - x_t.to(tl.float32) + tl.log(l)))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return loss
