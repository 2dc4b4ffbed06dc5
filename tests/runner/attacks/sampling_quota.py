# expect: wrong_answer
# problem: sampling
# tests: all
# message: better than random draws
# A deterministic quota: the j-th of a run of N equal rows takes the token the inverse CDF gives (j + 1/2) / N,
# so each token is drawn its expected number of times to within one. Every count fits; no chance is left. The kit
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
    rank = torch.arange(len(run), device=p.device) - starts[run]
    u = ((rank.double() + 0.5) / sizes[run].double())[:, None]
    cdf = p.cumsum(dim=-1)
    token = (cdf <= u * cdf[:, -1:]).sum(dim=-1)
    last = p.shape[-1] - 1 - (p.flip(-1) > 0).int().argmax(dim=-1)
    return torch.minimum(token, last)
