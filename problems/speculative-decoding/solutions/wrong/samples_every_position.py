# expect: runtime_error
# message: RuntimeError
# fails-on: p-equals-q
# Draws a candidate from max(0, p_i - q_i) at every position at once and keeps the one at the first rejection.
# Where p_i == q_i the residual is a row of zeros, which torch.multinomial refuses, although that position can
# never be the one rejected.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, vocab = draft_probs.shape
    p_x = target_probs[:, :k].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = draft_probs.gather(-1, draft_tokens[..., None]).squeeze(-1)
    u = torch.rand(batch, k, generator=generator, device=draft_probs.device, dtype=draft_probs.dtype)
    accepted = (u < p_x / q_x).long().cumprod(dim=-1).sum(dim=-1)
    residual = torch.cat([(target_probs[:, :k] - draft_probs).clamp(min=0), target_probs[:, k:]], dim=1)
    candidates = torch.multinomial(residual.view(-1, vocab), 1, generator=generator).view(batch, k + 1)
    return accepted, candidates.gather(1, accepted[:, None]).squeeze(1)
