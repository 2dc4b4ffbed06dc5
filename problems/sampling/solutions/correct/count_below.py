# expect: accepted
# Inverse CDF without searchsorted, in vocabulary order: the token is the number of cumulative sums at or
# below u * total, capped at the last token that can be drawn. The sums are float64, so u * total < total.
import torch


def sample(logits, temperature=1.0, top_k=0, top_p=1.0, *, generator):
    if temperature == 0:
        return logits.argmax(dim=-1)
    p = (logits.double() / temperature).softmax(dim=-1)
    if top_k > 0:
        kth = p.topk(min(top_k, p.shape[-1]), dim=-1).values[:, -1:]
        p = p * (p >= kth)
    if top_p < 1.0:
        # Mass strictly above each token, from the ascending sort: total minus everything at most as likely.
        ascending = p.sort(dim=-1).values
        at_most = ascending.cumsum(dim=-1).gather(-1, torch.searchsorted(ascending, p, right=True) - 1)
        p = p * (p.sum(dim=-1, keepdim=True) - at_most < top_p * p.sum(dim=-1, keepdim=True))
    cdf = p.cumsum(dim=-1)
    u = torch.rand(p.shape[0], 1, generator=generator, device=p.device).double() * cdf[:, -1:]
    token = (cdf <= u).sum(dim=-1)
    last = p.shape[-1] - 1 - (p.flip(-1) > 0).int().argmax(dim=-1)
    return torch.minimum(token, last)
