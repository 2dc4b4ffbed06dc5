import torch


def sinusoidal_encoding(seq_len: int, d_model: int, offset: int = 0, *, dtype: torch.dtype = torch.float32,
                        device: torch.device | str | None = None) -> torch.Tensor:
    """(seq_len, d_model): row t encodes position offset + t; column 2i is sin(p * 10000^(-2i/d_model)), column
    2i + 1 its cos."""
    raise NotImplementedError


def alibi_slopes(n_heads: int, *, dtype: torch.dtype = torch.float32,
                 device: torch.device | str | None = None) -> torch.Tensor:
    """(n_heads,): the ALiBi paper's slopes, for any number of heads."""
    raise NotImplementedError


def alibi_bias(n_heads: int, t_q: int, t_k: int, *, dtype: torch.dtype = torch.float32,
               device: torch.device | str | None = None) -> torch.Tensor:
    """(n_heads, t_q, t_k): -slope * (query position - key position), -inf on future keys; query i is at
    position t_k - t_q + i."""
    raise NotImplementedError
