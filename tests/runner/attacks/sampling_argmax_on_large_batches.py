# expect: wrong_answer
# problem: sampling
# tests: all
# message: do not follow the distribution
# Takes the argmax in a large vocabulary wherever no token has 60 % of the mass, and samples correctly elsewhere:
# the tests of a large vocabulary drew 16 tokens a row, so such a row had at most two cells of 5 expected draws,
# often one, and was rarely tested. Every test now draws enough of each row to test it, and `runner check`
# refuses a package where one does not.
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
    u = torch.rand(p.shape[0], 1, generator=generator, device=p.device).double()
    cdf = p.cumsum(dim=-1)
    token = (cdf <= u * cdf[:, -1:]).sum(dim=-1)
    last = p.shape[-1] - 1 - (p.flip(-1) > 0).int().argmax(dim=-1)
    spread = (p / p.sum(dim=-1, keepdim=True)).max(dim=-1).values < 0.6
    return torch.where(spread & (p.shape[-1] >= 4096), p.argmax(dim=-1), torch.minimum(token, last))
