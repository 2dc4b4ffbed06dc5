# expect: accepted
# Tiles of 4 rows × 256 columns (a program per 4 rows, so weight and bias are loaded once per tile, not per
# row). One statistics pass of shifted sums: with K a sample of the row (its first element), the sums of
# x - K and (x - K)² give the variance without cancellation, since the mean lies within a few spreads of K.
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_tiles(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, m, n, eps,
                     stride_xm, stride_xn, stride_ym, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    offsets = tl.arange(0, BLOCK)
    row_ok = rows < m
    x_rows = x_ptr + rows[:, None] * stride_xm
    # The first chunk, peeled: it gives the shift K without another load.
    mask = row_ok[:, None] & (offsets[None, :] < n)
    x = tl.load(x_rows + offsets[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
    shift = tl.sum(tl.where(offsets[None, :] == 0, x, 0.0), axis=1)
    shifted = tl.where(mask, x - shift[:, None], 0.0)
    total = tl.sum(shifted, axis=1)
    squares = tl.sum(shifted * shifted, axis=1)
    for start in range(BLOCK, n, BLOCK):
        cols = start + offsets
        mask = row_ok[:, None] & (cols[None, :] < n)
        x = tl.load(x_rows + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
        shifted = tl.where(mask, x - shift[:, None], 0.0)
        total += tl.sum(shifted, axis=1)
        squares += tl.sum(shifted * shifted, axis=1)
    offset = total / n
    mean = shift + offset
    rstd = 1.0 / tl.sqrt(tl.maximum(squares / n - offset * offset, 0.0) + eps)
    tl.store(mean_ptr + rows, mean, mask=row_ok)
    tl.store(rstd_ptr + rows, rstd, mask=row_ok)
    for start in range(0, n, BLOCK):
        cols = start + offsets
        col_ok = cols < n
        mask = row_ok[:, None] & col_ok[None, :]
        x = tl.load(x_rows + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=col_ok).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=col_ok).to(tl.float32)
        y = (x - mean[:, None]) * rstd[:, None] * w[None, :] + b[None, :]
        tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)


def layer_norm(x, weight, bias, eps):
    m, n = x.shape
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    mean = torch.empty(m, dtype=torch.float32, device=x.device)
    rstd = torch.empty(m, dtype=torch.float32, device=x.device)
    rows = 4
    layer_norm_tiles[(triton.cdiv(m, rows),)](x, weight, bias, y, mean, rstd, m, n, eps, x.stride(0), x.stride(1),
                                              y.stride(0), ROWS=rows, BLOCK=256)
    return y, mean, rstd
