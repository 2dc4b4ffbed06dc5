# expect: accepted
# An exponential race: with E_i ~ Exp(1) independent, argmin E_i / p_i is token i with probability p_i. The
# filters work on the sorted distribution and are scattered back; tied probabilities share one fate.
import torch


def sample(logits, temperature=1.0, top_k=0, top_p=1.0, *, generator):
    if temperature == 0:
        return torch.argmax(logits, dim=-1)
    p = torch.softmax(logits.to(torch.float32) / temperature, dim=-1)
    ordered, order = torch.sort(p, dim=-1, descending=True)
    keep = torch.ones_like(ordered, dtype=torch.bool)
    if top_k > 0:
        keep &= ordered >= ordered[:, min(top_k, p.shape[-1]) - 1, None]
    if top_p < 1.0:
        kept = ordered * keep
        before = (kept.cumsum(dim=-1) - kept) / kept.sum(dim=-1, keepdim=True)
        last = (keep & (before < top_p)).sum(dim=-1, keepdim=True) - 1       # the last position inside
        keep &= ordered >= ordered.gather(-1, last)                          # and every tie of it
    kept = torch.zeros_like(p).scatter(-1, order, ordered * keep)
    race = torch.empty_like(kept).exponential_(generator=generator)
    return torch.where(kept > 0, race / kept, torch.inf).argmin(dim=-1)
