# expect: accepted
# A first-in first-out queue of free blocks (freed blocks wait behind the fresh ones), a sequence kept as a small
# dataclass, a gather that concatenates one slice per block (the last one partly), and attention through
# scaled_dot_product_attention with the heads as its batch.
from collections import deque
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F


@dataclass
class Sequence:
    blocks: list = field(default_factory=list)
    length: int = 0


class PagedKVCache:
    def __init__(self, k_pool, v_pool):
        self.pools = (k_pool, v_pool)
        self.block_size = k_pool.shape[1]
        self.queue = deque(range(k_pool.shape[0]))
        self.sequences = {}

    def append(self, seq_id, k, v):
        seq = self.sequences.get(seq_id, Sequence())
        end = seq.length + k.shape[0]
        missing = (end + self.block_size - 1) // self.block_size - len(seq.blocks)
        if missing > len(self.queue):
            raise RuntimeError("KV cache pool exhausted")
        seq.blocks.extend(self.queue.popleft() for _ in range(missing))
        self.sequences[seq_id] = seq
        for pos in range(seq.length - seq.length % self.block_size, end, self.block_size):
            lo, hi = max(pos, seq.length), min(pos + self.block_size, end)
            block = seq.blocks[pos // self.block_size]
            for pool, new in zip(self.pools, (k, v)):
                pool[block, lo - pos:hi - pos] = new[lo - seq.length:hi - seq.length]
        seq.length = end

    def gather(self, seq_id):
        seq = self.sequences[seq_id]
        parts = [(block, min(self.block_size, seq.length - i * self.block_size)) for i, block in enumerate(seq.blocks)]
        return tuple(torch.cat([pool[block, :used] for block, used in parts]) for pool in self.pools)

    def attend(self, seq_id, q):
        k, v = self.gather(seq_id)
        out = F.scaled_dot_product_attention(q[:, None, :], k.transpose(0, 1), v.transpose(0, 1))
        return out[:, 0, :]

    def free(self, seq_id):
        self.queue.extend(self.sequences.pop(seq_id).blocks)
