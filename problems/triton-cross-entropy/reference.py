import torch
import triton
import triton.language as tl

IGNORE_INDEX = -100


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col,
                         IGNORE: tl.constexpr, BLOCK: tl.constexpr):
    # One program per row, one pass over its logits: logsumexp online, a running maximum m and a running sum l
    # of exp(x - m), the sum rescaled by exp(m_old - m_new) whenever a chunk raises the maximum.
    row = tl.program_id(0)
    row_ptr = logits_ptr + row.to(tl.int64) * stride_row
    m = tl.full([], float("-inf"), tl.float32)
    l = tl.zeros([], tl.float32)
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols * stride_col, mask=cols < vocab, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    # The target's logit, one element, read only where the row counts: loss = (m - x_t) + log(l).
    target = tl.load(target_ptr + row)
    counted = target != IGNORE
    x_t = tl.load(row_ptr + target * stride_col, mask=counted, other=0.0).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(counted, (m - x_t) + tl.log(l), 0.0))


def cross_entropy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1),
                               IGNORE=IGNORE_INDEX, BLOCK=2048)
    return loss
