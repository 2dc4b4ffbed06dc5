# expect: wrong_answer
# message: the bonus, drawn from p_(k+1)
# fails-on: four-drafts
# Treats target_probs as if it had k rows: when all k drafts pass, the position is clamped to the last draft and
# the next token comes from that draft's residual, never from p_{k+1}, the target's distribution after them.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, _ = draft_probs.shape
    p_x = target_probs[:, :k].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = draft_probs.gather(-1, draft_tokens[..., None]).squeeze(-1)
    u = torch.rand(batch, k, generator=generator, device=draft_probs.device, dtype=draft_probs.dtype)
    accepted = (u < p_x / q_x).long().cumprod(dim=-1).sum(dim=-1)
    rows, position = torch.arange(batch, device=draft_probs.device), accepted.clamp(max=k - 1)
    residual = (target_probs[rows, position] - draft_probs[rows, position]).clamp(min=0)
    return accepted, torch.multinomial(residual, 1, generator=generator).squeeze(-1)
