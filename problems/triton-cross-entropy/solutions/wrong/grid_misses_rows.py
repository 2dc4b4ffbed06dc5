# expect: wrong_answer
# message: never stored by a kernel
# Four rows per program and a grid of n // 4 programs: when n is not a multiple of 4 the last rows belong
# to no program, and their losses are whatever torch.empty left there. The grid is triton.cdiv(n, 4).
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, n_rows, vocab, stride_row, stride_col,
                         ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < n_rows
    m = tl.where(row_ok, float("-inf"), 0.0)
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
    cross_entropy_kernel[(n // 4,)](logits, target, loss, n, vocab, logits.stride(0), logits.stride(1),
                                   ROWS=4, BLOCK=1024)
    return loss
