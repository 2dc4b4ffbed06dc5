# expect: accepted
# The bank's shape of it: a free list popped from the end, block tables of Python ints, appends that fill the
# last block's free slots and then one block at a time, a gather that indexes whole blocks and trims the last,
# and an attend that walks the table block by block with a running maximum and sum (PagedAttention's loop).
import torch


class PagedKVCache:
    def __init__(self, k_pool, v_pool):
        self.k_pool, self.v_pool = k_pool, v_pool
        self.size = k_pool.shape[1]
        self.free_list = list(range(k_pool.shape[0]))
        self.tables, self.lengths = {}, {}

    def append(self, seq_id, k, v):
        table, length = self.tables.get(seq_id, []), self.lengths.get(seq_id, 0)
        if -(-(length + len(k)) // self.size) - len(table) > len(self.free_list):
            raise RuntimeError("the pool has too few free blocks")
        self.tables[seq_id] = table
        done = 0
        while done < len(k):
            offset = (length + done) % self.size
            if offset == 0:
                table.append(self.free_list.pop())
            take = min(self.size - offset, len(k) - done)
            self.k_pool[table[-1], offset:offset + take] = k[done:done + take]
            self.v_pool[table[-1], offset:offset + take] = v[done:done + take]
            done += take
        self.lengths[seq_id] = length + len(k)

    def gather(self, seq_id):
        blocks, length = torch.tensor(self.tables[seq_id], device=self.k_pool.device), self.lengths[seq_id]
        return self.k_pool[blocks].flatten(0, 1)[:length], self.v_pool[blocks].flatten(0, 1)[:length]

    def attend(self, seq_id, q):
        length, scale = self.lengths[seq_id], q.shape[-1] ** -0.5
        best = torch.full(q.shape[:1], float("-inf"), dtype=q.dtype, device=q.device)
        total = torch.zeros_like(best)
        acc = torch.zeros_like(q)
        for index, block in enumerate(self.tables[seq_id]):
            used = min(self.size, length - index * self.size)
            keys, values = self.k_pool[block, :used], self.v_pool[block, :used]      # (used, heads, dim)
            scores = torch.einsum("hd,thd->ht", q, keys) * scale
            new_best = torch.maximum(best, scores.amax(dim=1))
            weights, rescale = (scores - new_best[:, None]).exp(), (best - new_best).exp()
            total = total * rescale + weights.sum(dim=1)
            acc = acc * rescale[:, None] + torch.einsum("ht,thd->hd", weights, values)
            best = new_best
        return acc / total[:, None]

    def free(self, seq_id):
        self.free_list += self.tables.pop(seq_id)
        del self.lengths[seq_id]
