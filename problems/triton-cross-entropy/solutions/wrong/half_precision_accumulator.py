# expect: wrong_answer
# message: float16's rounding
# Keeps the running maximum and the per-lane running sums in the logits' own dtype, to halve their
# registers: only exp itself is float32 (Triton refuses a float16 exp). Exact for float32 logits, but for
# float16 ones each update of the sum rounds to 11 bits, and the loss is off by about 2^-11 of its size,
# hundreds of times float32's rounding. Accumulate in float32.
import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    dtype = logits_ptr.dtype.element_ty
    m = tl.full([BLOCK], float("-inf"), dtype)
    l = tl.zeros([BLOCK], dtype)
    for start in range(0, vocab, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab, other=float("-inf"))
        m_new = tl.maximum(m, x)
        rescale = tl.exp(m.to(tl.float32) - m_new.to(tl.float32))
        term = tl.exp(x.to(tl.float32) - m_new.to(tl.float32))
        l = tl.where(m_new == float("-inf"), 0.0, l * rescale + term).to(dtype)
        m = m_new
    row_max = tl.max(m, axis=0).to(tl.float32)
    lanes = tl.where(m == float("-inf"), 0.0, l * tl.exp(m.to(tl.float32) - row_max)).to(dtype)
    row_sum = tl.sum(lanes, axis=0)
    target = tl.load(target_ptr + row)
    x_t = tl.load(logits_ptr + row * stride_row + target * stride_col, mask=target != -100, other=0.0)
    loss = row_max - x_t.to(tl.float32) + tl.log(row_sum.to(tl.float32))
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, loss))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(n,)](logits, target, loss, vocab, logits.stride(0), logits.stride(1), BLOCK=1024)
    return loss
