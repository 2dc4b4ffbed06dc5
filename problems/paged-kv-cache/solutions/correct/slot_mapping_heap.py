# expect: accepted
# vLLM's bookkeeping: the lowest-numbered free block first (a heap), each sequence's table kept as a tensor, a
# slot mapping for the new tokens written with index_copy_, index_select to gather, and matmul attention.
import heapq
import math

import torch


class PagedKVCache:
    def __init__(self, k_pool, v_pool):
        self.k_flat = k_pool.view(-1, *k_pool.shape[2:])         # one row per slot, the pool's own memory
        self.v_flat = v_pool.view(-1, *v_pool.shape[2:])
        self.block_size = k_pool.shape[1]
        self.heap = list(range(k_pool.shape[0]))
        self.seqs = {}                                            # seq_id -> [block table tensor, length]

    def _slots(self, table, start, end):
        pos = torch.arange(start, end, device=table.device)
        return table[torch.div(pos, self.block_size, rounding_mode="floor")] * self.block_size + pos % self.block_size

    def append(self, seq_id, k, v):
        table, length = self.seqs.get(seq_id, (torch.empty(0, dtype=torch.long, device=k.device), 0))
        new = math.ceil((length + k.shape[0]) / self.block_size) - table.numel()
        if new > len(self.heap):
            raise RuntimeError(f"out of KV blocks: {new} needed, {len(self.heap)} free")
        taken = [heapq.heappop(self.heap) for _ in range(new)]
        table = torch.cat([table, torch.tensor(taken, dtype=torch.long, device=k.device)])
        slots = self._slots(table, length, length + k.shape[0])
        self.k_flat.index_copy_(0, slots, k)
        self.v_flat.index_copy_(0, slots, v)
        self.seqs[seq_id] = (table, length + k.shape[0])

    def gather(self, seq_id):
        table, length = self.seqs[seq_id]
        slots = self._slots(table, 0, length)
        return self.k_flat.index_select(0, slots), self.v_flat.index_select(0, slots)

    def attend(self, seq_id, q):
        k, v = self.gather(seq_id)
        k, v = k.transpose(0, 1), v.transpose(0, 1)              # (heads, L, dim)
        scores = torch.matmul(q.unsqueeze(1), k.transpose(1, 2)) / math.sqrt(q.shape[-1])
        return torch.matmul(torch.softmax(scores, dim=-1), v).squeeze(1)

    def free(self, seq_id):
        table, _ = self.seqs.pop(seq_id)
        for block in table.tolist():
            heapq.heappush(self.heap, block)
