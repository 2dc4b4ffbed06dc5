# expect: accepted
# ROWS rows per program: a ROWS × BLOCK tile of logits per step, one running maximum and sum per row
# (reductions along axis 1), the targets loaded as a vector and their logits gathered with a 1-D masked
# load. Rows past the last and ignored rows are masked out of every load and store they do not need.
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, n_rows, vocab, stride_row, stride_col,
                         ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < n_rows
    m = tl.where(row_ok, float("-inf"), 0.0)   # a missing row gets 0, so its lanes give exp(-inf) = 0, not NaN
    l = tl.zeros([ROWS], tl.float32)
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = row_ok[:, None] & (cols[None, :] < vocab)
        x = tl.load(logits_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask,
                    other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), axis=1)
        m = m_new
    target = tl.load(target_ptr + rows, mask=row_ok, other=-100)
    counted = row_ok & (target != -100)
    x_t = tl.load(logits_ptr + rows * stride_row + target * stride_col, mask=counted, other=0.0).to(tl.float32)
    tl.store(loss_ptr + rows, tl.where(counted, m - x_t + tl.log(l), 0.0), mask=row_ok)


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    ROWS = 4
    cross_entropy_kernel[(triton.cdiv(n, ROWS),)](logits, target, loss, n, vocab, logits.stride(0),
                                                  logits.stride(1), ROWS=ROWS, BLOCK=1024)
    return loss
