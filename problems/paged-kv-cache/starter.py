import torch


class PagedKVCache:
    """Keys and values of many sequences in a shared pool of fixed-size blocks.

    k_pool, v_pool: (num_blocks, block_size, n_heads, head_dim), given; keep every token in them.
    append(seq_id, k, v): k, v (t, n_heads, head_dim); takes blocks only for what does not fit in the
    sequence's last block, raises RuntimeError (changing nothing) when too few are free.
    gather(seq_id) -> (k, v) of shape (L, n_heads, head_dim) in token order.
    attend(seq_id, q): q (n_heads, head_dim) -> softmax(q k^T / sqrt(head_dim)) v per head.
    free(seq_id): its blocks back to the free blocks.
    """

    def __init__(self, k_pool: torch.Tensor, v_pool: torch.Tensor) -> None:
        raise NotImplementedError

    def append(self, seq_id: int, k: torch.Tensor, v: torch.Tensor) -> None:
        raise NotImplementedError

    def gather(self, seq_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def attend(self, seq_id: int, q: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def free(self, seq_id: int) -> None:
        raise NotImplementedError
