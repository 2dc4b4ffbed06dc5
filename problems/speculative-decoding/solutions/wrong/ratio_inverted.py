# expect: wrong_answer
# message: min(1, q/p)
# fails-on: four-drafts
# Accepts with min(1, q/p): the draft's probability over the target's. Drafts the target finds less likely
# than the draft did are now the ones always kept.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, _ = draft_probs.shape
    p_x = target_probs[:, :k].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = draft_probs.gather(-1, draft_tokens[..., None]).squeeze(-1)
    u = torch.rand(batch, k, generator=generator, device=draft_probs.device, dtype=draft_probs.dtype)
    accepted = (u < q_x / p_x).long().cumprod(dim=-1).sum(dim=-1)
    rows = torch.arange(batch, device=draft_probs.device)
    q_next = torch.where((accepted < k)[:, None], draft_probs[rows, accepted.clamp(max=k - 1)], 0.0)
    residual = (target_probs[rows, accepted] - q_next).clamp(min=0)
    return accepted, torch.multinomial(residual, 1, generator=generator).squeeze(-1)
