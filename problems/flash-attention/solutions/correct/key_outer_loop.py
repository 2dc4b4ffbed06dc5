# expect: accepted
# FlashAttention-1's loop order: the outer loop walks the key/value blocks, the inner one the query blocks,
# and the running maximum, sum and output of every query row live in full-length tensors between passes.
import math

import torch


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    t, d = q.shape[-2], q.shape[-1]
    scale = d ** -0.5
    acc = torch.zeros_like(q)
    row_max = torch.full(q.shape[:-1], -math.inf, dtype=q.dtype, device=q.device)
    row_sum = torch.zeros_like(row_max)
    positions = torch.arange(t, device=q.device)
    for ks in range(0, t, block_k):
        ke = min(ks + block_k, t)
        kt, vt = k[..., ks:ke, :], v[..., ks:ke, :]
        # Causal: query tiles that end before this key block starts see none of it.
        first_q = (ks // block_q) * block_q if causal else 0
        for qs in range(first_q, t, block_q):
            qe = min(qs + block_q, t)
            s = torch.einsum("bhqd,bhkd->bhqk", q[..., qs:qe, :], kt) * scale
            if causal:
                s = s.masked_fill(positions[ks:ke][None, :] > positions[qs:qe][:, None], -math.inf)
            m_old = row_max[..., qs:qe]
            m_new = torch.maximum(m_old, s.amax(dim=-1))
            # A row that has seen no unmasked key yet keeps -inf; exp(-inf - -inf) would be NaN.
            safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
            p = torch.exp(s - safe[..., None])
            alpha = torch.exp(m_old - safe)
            row_sum[..., qs:qe] = row_sum[..., qs:qe] * alpha + p.sum(dim=-1)
            acc[..., qs:qe, :] = acc[..., qs:qe, :] * alpha[..., None] + torch.einsum("bhqk,bhkd->bhqd", p, vt)
            row_max[..., qs:qe] = m_new
    return acc / row_sum[..., None]
