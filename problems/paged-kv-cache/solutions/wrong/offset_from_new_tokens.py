# expect: wrong_answer
# message: a later append overwrote it
# fails-on: interleaved-appends
# Places new token i at offset i % block_size of block (L + i) // block_size: right for the first append of a
# sequence, but every later one restarts at offset 0 of the block it lands in, over the tokens already there.
import torch


class PagedKVCache:
    def __init__(self, k_pool: torch.Tensor, v_pool: torch.Tensor) -> None:
        self.k_pool, self.v_pool = k_pool, v_pool
        self.block_size = k_pool.shape[1]
        self.free_blocks = list(range(k_pool.shape[0] - 1, -1, -1))     # pop() takes the lowest-numbered
        self.tables: dict[int, list[int]] = {}
        self.lengths: dict[int, int] = {}

    def _slots(self, seq_id: int, start: int, end: int) -> torch.Tensor:
        """Row of each position start .. end - 1 in the pool flattened to (num_blocks * block_size, ...)."""
        positions = torch.arange(start, end, device=self.k_pool.device)
        table = torch.tensor(self.tables[seq_id], device=self.k_pool.device)
        return table[positions // self.block_size] * self.block_size + (positions - start) % self.block_size

    def append(self, seq_id: int, k: torch.Tensor, v: torch.Tensor) -> None:
        start = self.lengths.get(seq_id, 0)
        end = start + k.shape[0]
        table = self.tables.get(seq_id, [])
        needed = -(-end // self.block_size) - len(table)
        if needed > len(self.free_blocks):
            raise RuntimeError(f"{needed} blocks needed, {len(self.free_blocks)} free")
        self.tables[seq_id] = table + [self.free_blocks.pop() for _ in range(needed)]
        self.lengths[seq_id] = end
        slots = self._slots(seq_id, start, end)
        self.k_pool.view(-1, *k.shape[1:])[slots] = k                 # a view of the pool: no copy
        self.v_pool.view(-1, *v.shape[1:])[slots] = v

    def gather(self, seq_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        slots = self._slots(seq_id, 0, self.lengths[seq_id])
        shape = self.k_pool.shape[2:]
        return self.k_pool.view(-1, *shape)[slots], self.v_pool.view(-1, *shape)[slots]

    def attend(self, seq_id: int, q: torch.Tensor) -> torch.Tensor:
        k, v = self.gather(seq_id)                                     # (L, n_heads, head_dim)
        scores = torch.einsum("hd,lhd->hl", q, k) / q.shape[-1] ** 0.5
        return torch.einsum("hl,lhd->hd", scores.softmax(dim=-1), v)

    def free(self, seq_id: int) -> None:
        self.free_blocks += reversed(self.tables.pop(seq_id))
        del self.lengths[seq_id]
