# expect: wrong_answer
# message: the correction samples the residual, not the target
# fails-on: four-drafts
# After a rejection draws the next token from p itself. The rejected draft's mass min(p, q) was already spent
# on the accept branch, so drawing from all of p counts the tokens the draft covers twice.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, _ = draft_probs.shape
    p_x = target_probs[:, :k].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = draft_probs.gather(-1, draft_tokens[..., None]).squeeze(-1)
    u = torch.rand(batch, k, generator=generator, device=draft_probs.device, dtype=draft_probs.dtype)
    accepted = (u < p_x / q_x).long().cumprod(dim=-1).sum(dim=-1)
    p_next = target_probs[torch.arange(batch, device=draft_probs.device), accepted]
    return accepted, torch.multinomial(p_next, 1, generator=generator).squeeze(-1)
