# expect: time_limit_exceeded
# fails-on: timed-prefill-and-decode
# Writes and reads one token at a time in Python, finding each token's block and slot by hand: right, but a
# 1024-token append is 2048 small copies and a gather 2048 more where indexed copies make a few.
import torch


class PagedKVCache:
    def __init__(self, k_pool, v_pool):
        self.k_pool, self.v_pool = k_pool, v_pool
        self.block_size = k_pool.shape[1]
        self.free_blocks = list(range(k_pool.shape[0]))
        self.tables, self.lengths = {}, {}

    def append(self, seq_id, k, v):
        table, length = self.tables.setdefault(seq_id, []), self.lengths.get(seq_id, 0)
        if -(-(length + len(k)) // self.block_size) - len(table) > len(self.free_blocks):
            raise RuntimeError("out of blocks")
        for i in range(len(k)):
            block, offset = divmod(length + i, self.block_size)
            if block == len(table):
                table.append(self.free_blocks.pop(0))
            self.k_pool[table[block], offset] = k[i]
            self.v_pool[table[block], offset] = v[i]
        self.lengths[seq_id] = length + len(k)

    def gather(self, seq_id):
        table, rows_k, rows_v = self.tables[seq_id], [], []
        for p in range(self.lengths[seq_id]):
            block, offset = divmod(p, self.block_size)
            rows_k.append(self.k_pool[table[block], offset])
            rows_v.append(self.v_pool[table[block], offset])
        return torch.stack(rows_k), torch.stack(rows_v)

    def attend(self, seq_id, q):
        k, v = self.gather(seq_id)
        weights = (torch.einsum("hd,lhd->hl", q, k) / q.shape[-1] ** 0.5).softmax(dim=-1)
        return torch.einsum("hl,lhd->hd", weights, v)

    def free(self, seq_id):
        self.free_blocks += self.tables.pop(seq_id)
        del self.lengths[seq_id]
