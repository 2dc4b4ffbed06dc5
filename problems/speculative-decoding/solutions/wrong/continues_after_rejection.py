# expect: wrong_answer
# message: the count stops at the first rejection
# fails-on: four-drafts
# Counts every draft that passes its own test, also those after a rejected one: once a draft is rejected the
# target's distributions after it were computed for a prefix that is no longer the text.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, _ = draft_probs.shape
    p_x = target_probs[:, :k].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = draft_probs.gather(-1, draft_tokens[..., None]).squeeze(-1)
    u = torch.rand(batch, k, generator=generator, device=draft_probs.device, dtype=draft_probs.dtype)
    accepted = (u < p_x / q_x).sum(dim=-1)
    rows = torch.arange(batch, device=draft_probs.device)
    q_next = torch.where((accepted < k)[:, None], draft_probs[rows, accepted.clamp(max=k - 1)], 0.0)
    residual = (target_probs[rows, accepted] - q_next).clamp(min=0)
    return accepted, torch.multinomial(residual, 1, generator=generator).squeeze(-1)
