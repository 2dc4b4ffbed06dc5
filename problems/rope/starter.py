import torch


def apply_rope(q: torch.Tensor, k: torch.Tensor, offset: int = 0,
               base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotary position embeddings in the half-split (rotate-half) layout.

    q: (batch, n_heads, seq, head_dim), k: (batch, n_kv_heads, seq, head_dim). The token at index t sits at
    position offset + t; pair i is (x[i], x[i + head_dim // 2]), rotated by (offset + t) * base**(-2i/head_dim).
    Returns (q_rot, k_rot) with the shapes and dtypes of q and k, differentiable with respect to both.
    """
    raise NotImplementedError
