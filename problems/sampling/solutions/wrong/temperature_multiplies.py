# expect: wrong_answer
# message: multiplying the logits by the temperature
# fails-on: temperature
# Scales the logits by T instead of 1 / T: a temperature of 0.7 flattens the distribution it should sharpen.
import torch


def filtered(logits, temperature=1.0, top_k=0, top_p=1.0):
    """The distribution drawn from, in vocabulary order."""
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).float()
    probs = torch.softmax(logits.float() * temperature, dim=-1)
    if top_k > 0:
        kth = probs.topk(min(top_k, probs.shape[-1]), dim=-1).values[:, -1:]
        probs = torch.where(probs >= kth, probs, 0.0)
    if top_p < 1.0:
        ordered = probs.sort(dim=-1, descending=True).values
        before = (ordered.cumsum(dim=-1) - ordered) / ordered.sum(dim=-1, keepdim=True)
        smallest = torch.where(before < top_p, ordered, torch.inf).amin(dim=-1, keepdim=True)
        probs = torch.where(probs >= smallest, probs, 0.0)
    return probs / probs.sum(dim=-1, keepdim=True)


def sample(logits, temperature=1.0, top_k=0, top_p=1.0, *, generator):
    kept = filtered(logits, temperature, top_k, top_p).double()
    cdf = kept.cumsum(dim=-1)
    u = torch.rand(len(cdf), 1, generator=generator, device=cdf.device).double()
    # The kept mass can sum to just under 1: a u above it takes the last token kept, never one filtered out.
    last = kept.shape[-1] - 1 - (kept.flip(-1) > 0).int().argmax(dim=-1, keepdim=True)
    return torch.minimum(torch.searchsorted(cdf, u, right=True), last).squeeze(-1)
