# expect: accepted
# The way Hugging Face's LlamaRotaryEmbedding does it: an inverse-frequency "buffer" kept between calls, the
# angles as a float32 matmul of frequencies and position ids, cos and sin cast to the input's dtype before the
# multiplications (so bfloat16 inputs are rotated in bfloat16 arithmetic), unsqueezed over the heads axis.
import torch

_inv_freq = {}


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(q, k, offset=0, base=10000.0):
    batch, _, seq, dim = q.shape
    table = torch.float64 if q.dtype == torch.float64 else torch.float32
    key = (dim, base, table, q.device)
    if key not in _inv_freq:
        _inv_freq[key] = 1.0 / (base ** (torch.arange(0, dim, 2, device=q.device).to(table) / dim))
    position_ids = torch.arange(offset, offset + seq, device=q.device)[None, :].expand(batch, seq)
    inv_freq_expanded = _inv_freq[key][None, :, None].expand(batch, -1, 1)
    freqs = (inv_freq_expanded @ position_ids[:, None, :].to(table)).transpose(1, 2)   # (batch, seq, dim / 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(q.dtype).unsqueeze(1), emb.sin().to(q.dtype).unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
