import math

import torch


def flash_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                    block_q: int = 64, block_k: int = 64) -> torch.Tensor:
    *_, t, d = q.shape
    scale = 1.0 / math.sqrt(d)
    out = torch.empty_like(q)
    for q_start in range(0, t, block_q):
        q_end = min(q_start + block_q, t)
        q_tile = q[..., q_start:q_end, :] * scale
        # Running statistics of each query row: the maximum score so far, the sum of exp(score - maximum)
        # and the unnormalised weighted sum of values, all relative to that same maximum.
        row_max = torch.full(q_tile.shape[:-1] + (1,), -math.inf, dtype=q.dtype, device=q.device)
        row_sum = torch.zeros_like(row_max)
        acc = torch.zeros_like(q_tile)
        # Causal: key blocks that start after the tile's last query are fully masked; skip them.
        k_stop = min(q_end, t) if causal else t
        for k_start in range(0, k_stop, block_k):
            k_end = min(k_start + block_k, t)
            scores = q_tile @ k[..., k_start:k_end, :].transpose(-2, -1)
            if causal:
                rows = torch.arange(q_start, q_end, device=q.device)[:, None]
                cols = torch.arange(k_start, k_end, device=q.device)[None, :]
                scores = scores.masked_fill(cols > rows, -math.inf)
            new_max = torch.maximum(row_max, scores.amax(dim=-1, keepdim=True))
            # Rescale what was accumulated against the old maximum to the new one, then add this tile.
            correction = torch.exp(row_max - new_max)
            weights = torch.exp(scores - new_max)
            row_sum = row_sum * correction + weights.sum(dim=-1, keepdim=True)
            acc = acc * correction + weights @ v[..., k_start:k_end, :]
            row_max = new_max
        out[..., q_start:q_end, :] = acc / row_sum
    return out
