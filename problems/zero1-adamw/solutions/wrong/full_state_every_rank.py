# expect: wrong_answer
# mistake: plain AdamW on every rank: the right parameters, identical everywhere, with no communication at all, but every rank keeps the whole optimizer state, which is what ZeRO stage 1 exists to shard
# message: A full copy of the state on every rank is what ZeRO stage 1 removes
# fails-on: w2-three-steps
import torch


class ZeroAdamW(torch.optim.AdamW):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
