# expect: accepted
# Base 2 and one running maximum and sum per lane: each lane of the BLOCK keeps its own (m, l) across the
# chunks with no reduction inside the loop, and the lanes are merged once at the end (the same rescaling
# rule, applied across lanes). exp(d) = exp2(d · log2 e), the constant applied to differences only (x · log2 e
# alone would round to the grid of x's magnitude); logsumexp = m + ln 2 · log2(l).
import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.full([BLOCK], float("-inf"), tl.float32)   # per lane
    l = tl.zeros([BLOCK], tl.float32)
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab, other=float("-inf"))
        x = x.to(tl.float32)
        m_new = tl.maximum(m, x)
        # A lane that has seen only masked entries keeps m = -inf; exp2(-inf - -inf) would be NaN.
        l = tl.where(m_new == float("-inf"), 0.0, l * tl.exp2((m - m_new) * LOG2E) + tl.exp2((x - m_new) * LOG2E))
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(tl.where(m == float("-inf"), 0.0, l * tl.exp2((m - row_max) * LOG2E)), axis=0)
    target = tl.load(target_ptr + row)
    counted = target != -100
    x_t = tl.load(logits_ptr + row * stride_row + target * stride_col, mask=counted, other=0.0).to(tl.float32)
    loss = (row_max - x_t) + LN2 * tl.log2(row_sum)
    tl.store(loss_ptr + row, tl.where(counted, loss, 0.0))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=2048)
    return loss
