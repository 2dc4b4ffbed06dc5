# expect: wrong_answer
# problem: sampling
# tests: all
# message: seeded otherwise
# Draws from a generator of its own, seeded with a constant, rather than the one it is given: two calls agree
# and the draws follow the distribution, but they are the same whatever the hidden seed. The kit calls once
# more with the generator seeded otherwise and rejects draws that stay the same.
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
    own = torch.Generator(device=p.device).manual_seed(1234)
    u = torch.rand(p.shape[0], 1, generator=own, device=p.device).double()
    cdf = p.cumsum(dim=-1)
    token = (cdf <= u * cdf[:, -1:]).sum(dim=-1)
    last = p.shape[-1] - 1 - (p.flip(-1) > 0).int().argmax(dim=-1)
    return torch.minimum(token, last)
