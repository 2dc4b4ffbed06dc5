# expect: accepted
# The Gumbel-max trick: argmax(log p + G) with G = -log(-log U) is a draw from p. The filters are thresholds
# in vocabulary order (the k-th largest logit from kthvalue; the nucleus from the sorted probabilities).
import torch


def sample(logits, temperature=1.0, top_k=0, top_p=1.0, *, generator):
    if temperature == 0:
        return logits.argmax(dim=-1)
    z = logits.float() / temperature
    vocab = z.shape[-1]
    if 0 < top_k < vocab:
        kth = z.kthvalue(vocab - top_k + 1, dim=-1, keepdim=True).values     # the k-th largest
        z = z.masked_fill(z < kth, -torch.inf)
    if top_p < 1.0:
        p = z.softmax(dim=-1)
        ordered = p.sort(dim=-1, descending=True).values
        mass_before = ordered.cumsum(dim=-1) - ordered
        threshold = ordered.masked_fill(mass_before >= top_p, torch.inf).amin(dim=-1, keepdim=True)
        z = z.masked_fill(p < threshold, -torch.inf)
    u = torch.rand(z.shape, generator=generator, device=z.device).clamp(min=torch.finfo(torch.float32).tiny)
    gumbel = -torch.log(-torch.log(u))
    return (z + gumbel).argmax(dim=-1)
