# expect: accepted
# A vocabulary that fits in one block is loaded whole: max, sum and the target's logit from registers, no
# running rescale. Rows longer than FITS = 4096 take the chunked online logsumexp in chunks of FITS, since
# no block here holds more than 4096 elements (a GPU's registers).
import torch
import triton
import triton.language as tl

FITS = 4096


@triton.jit
def whole_row_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * stride_row + cols * stride_col, mask=cols < vocab,
                other=float("-inf")).to(tl.float32)
    target = tl.load(target_ptr + row)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    x_t = tl.sum(tl.where(cols == target, x, 0.0), axis=0)
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, lse - x_t))


@triton.jit
def chunked_kernel(logits_ptr, target_ptr, loss_ptr, vocab, stride_row, stride_col, BLOCK: tl.constexpr):
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
    x_t = tl.load(logits_ptr + row * stride_row + target * stride_col, mask=target != -100, other=0.0)
    tl.store(loss_ptr + row, tl.where(target == -100, 0.0, m + tl.log(l) - x_t.to(tl.float32)))


def cross_entropy(logits, target):
    n, vocab = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    args = (logits, target, loss, vocab, logits.stride(0), logits.stride(1))
    if vocab <= FITS:
        whole_row_kernel[(n,)](*args, BLOCK=triton.next_power_of_2(vocab))
    else:
        chunked_kernel[(n,)](*args, BLOCK=FITS)
    return loss
