# expect: accepted
# Draws a candidate next token at every position at once and keeps the one at the first rejection. Bernoulli
# acceptance with the ratio clamped at 1 (torch.bernoulli refuses probabilities above 1), the prefix as a
# cumulative minimum, and each candidate by counting the cumulative sums at or below u * total. Where p == q
# the residual is all zeros: its candidate is meaningless, and never kept, since that draft always passes.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, vocab = draft_probs.shape
    pick = draft_tokens.unsqueeze(-1)
    ratio = (target_probs[:, :k].gather(-1, pick) / draft_probs.gather(-1, pick)).squeeze(-1)
    keep = torch.bernoulli(ratio.clamp(max=1.0), generator=generator)
    accepted = keep.cummin(dim=-1).values.sum(dim=-1).long()
    residual = target_probs.clone()
    residual[:, :k] -= draft_probs
    residual.clamp_(min=0)
    cdf = residual.double().cumsum(dim=-1)
    u = torch.rand(batch, k + 1, 1, generator=generator, device=cdf.device, dtype=torch.float64) * cdf[..., -1:]
    last = vocab - 1 - (residual.flip(-1) > 0).int().argmax(dim=-1)      # u * total may round up to total
    candidates = torch.minimum((cdf <= u).sum(dim=-1), last)
    return accepted, candidates.gather(1, accepted.unsqueeze(1)).squeeze(1)
