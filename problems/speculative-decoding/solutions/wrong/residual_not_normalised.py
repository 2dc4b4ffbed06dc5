# expect: wrong_answer
# message: normalised
# fails-on: four-drafts
# Draws u in [0, 1) against the cumulative sum of max(0, p - q), whose total is only 1 - alpha: every u past
# it runs off the end and lands on the last token of the vocabulary.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, vocab = draft_probs.shape
    p_x = target_probs[:, :k].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = draft_probs.gather(-1, draft_tokens[..., None]).squeeze(-1)
    u = torch.rand(batch, k, generator=generator, device=draft_probs.device, dtype=draft_probs.dtype)
    accepted = (u < p_x / q_x).long().cumprod(dim=-1).sum(dim=-1)
    rows = torch.arange(batch, device=draft_probs.device)
    q_next = torch.where((accepted < k)[:, None], draft_probs[rows, accepted.clamp(max=k - 1)], 0.0)
    cdf = (target_probs[rows, accepted] - q_next).clamp(min=0).cumsum(dim=-1)
    v = torch.rand(batch, 1, generator=generator, device=draft_probs.device, dtype=cdf.dtype)
    return accepted, torch.searchsorted(cdf, v, right=True).clamp(max=vocab - 1).squeeze(-1)
