# expect: forbidden
# message: scaled_dot_product
# fails-on: two-key-blocks
# The one-call shortcut: PyTorch's fused attention, whichever backend it picks.
import torch.nn.functional as F


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
