# expect: wrong_answer
# problem: sampling
# tests: all
# message: better than random draws
# A deterministic quota, dealt in bit-reversed order: the j-th of a run of equal rows takes the token the inverse
# CDF gives the j-th point of the van der Corput sequence, so every stretch of the run (a test's row, where two
# equal rows follow each other) draws each token its expected number of times to within a few. Every count fits; no chance is left. The kit
# tests the lower tail of the chi-square law too, over all the rows of a test together.
import torch


def sample(logits, temperature=1.0, top_k=0, top_p=1.0, *, generator):
    if temperature == 0:
        return logits.argmax(dim=-1)
    p = (logits.double() / temperature).softmax(dim=-1)
    if top_k > 0:
        kth = p.topk(min(top_k, p.shape[-1]), dim=-1).values[:, -1:]
        p = p * (p >= kth)
    if top_p < 1.0:
        ascending = p.sort(dim=-1).values
        at_most = ascending.cumsum(dim=-1).gather(-1, torch.searchsorted(ascending, p, right=True) - 1)
        p = p * (p.sum(dim=-1, keepdim=True) - at_most < top_p * p.sum(dim=-1, keepdim=True))
    run = torch.cat([torch.zeros(1, dtype=torch.long, device=p.device), (logits[1:] != logits[:-1]).any(-1).cumsum(0)])
    sizes = torch.bincount(run)
    starts = sizes.cumsum(0) - sizes
    rank = torch.arange(len(run), device=p.device) - starts[run] + 1
    u, scale = torch.zeros(len(run), dtype=torch.float64, device=p.device), 0.5
    while bool(rank.any()):
        u, rank, scale = u + (rank % 2) * scale, rank // 2, scale / 2
    u = u[:, None]
    cdf = p.cumsum(dim=-1)
    token = (cdf <= u * cdf[:, -1:]).sum(dim=-1)
    last = p.shape[-1] - 1 - (p.flip(-1) > 0).int().argmax(dim=-1)
    return torch.minimum(token, last)
