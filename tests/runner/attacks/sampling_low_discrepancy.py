# expect: wrong_answer
# problem: sampling
# tests: all
# message: better than random draws
# Draws its uniforms from a low-discrepancy sequence (the golden-ratio Weyl sequence along the batch), shifted by
# one uniform from the generator: two calls seeded alike agree, another seed changes every draw, and each token's
# share is right, but the counts are far more even than random draws make them. The kit's chi-square test has
# a lower tail, judged over all the rows of a test together.
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
    shift = torch.rand(1, generator=generator, device=p.device).double()
    index = torch.arange(p.shape[0], device=p.device, dtype=torch.float64)
    u = torch.frac(shift + index * 0.6180339887498949)[:, None]
    cdf = p.cumsum(dim=-1)
    token = (cdf <= u * cdf[:, -1:]).sum(dim=-1)
    last = p.shape[-1] - 1 - (p.flip(-1) > 0).int().argmax(dim=-1)
    return torch.minimum(token, last)
