# expect: forbidden
# message: onnx::RotaryEmbedding
# fails-on: llama-layout-float32
import torch
from torch.onnx.ops import rotary_embedding


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float32, device=q.device) / dim)
    angles = torch.outer(torch.arange(offset, offset + seq, dtype=torch.float32, device=q.device), inv_freq)
    positions = torch.arange(seq, device=q.device).expand(q.shape[0], seq)
    return (rotary_embedding(q, angles.cos(), angles.sin(), positions),
            rotary_embedding(k, angles.cos(), angles.sin(), positions))
