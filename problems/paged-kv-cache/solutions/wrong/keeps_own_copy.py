# expect: wrong_answer
# message: keep all of them in k_pool and v_pool
# fails-on: interleaved-appends
# Does the block accounting right but keeps each sequence's keys and values in tensors of its own, grown with
# torch.cat: the pools stay empty, and the cache is back to one contiguous buffer per sequence, copied as it grows.
import torch


class PagedKVCache:
    def __init__(self, k_pool, v_pool):
        self.block_size, self.free_count = k_pool.shape[1], k_pool.shape[0]
        self.keys, self.values = {}, {}

    def _blocks(self, seq_id):
        return -(-len(self.keys.get(seq_id, ())) // self.block_size)

    def append(self, seq_id, k, v):
        held = self._blocks(seq_id)
        needed = -(-(len(self.keys.get(seq_id, ())) + len(k)) // self.block_size) - held
        if needed > self.free_count:
            raise RuntimeError("out of blocks")
        self.free_count -= needed
        self.keys[seq_id] = torch.cat([self.keys[seq_id], k]) if seq_id in self.keys else k.clone()
        self.values[seq_id] = torch.cat([self.values[seq_id], v]) if seq_id in self.values else v.clone()

    def gather(self, seq_id):
        return self.keys[seq_id], self.values[seq_id]

    def attend(self, seq_id, q):
        k, v = self.gather(seq_id)
        return torch.einsum("hl,lhd->hd", (torch.einsum("hd,lhd->hl", q, k) / q.shape[-1] ** 0.5).softmax(-1), v)

    def free(self, seq_id):
        self.free_count += self._blocks(seq_id)
        del self.keys[seq_id], self.values[seq_id]
