# expect: accepted
# Log space throughout: a draft passes when log u < log p - log q (log 0 = -inf rejects it), the first
# rejection is the argmax of the rejection flags with an always-rejecting sentinel after the last draft, and
# the next token is an exponential race, argmin E / r with E ~ Exp(1), over the residual at that position.
import torch
import torch.nn.functional as F


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, vocab = draft_probs.shape
    pick = draft_tokens.unsqueeze(-1)
    log_ratio = (target_probs[:, :k].gather(-1, pick).log() - draft_probs.gather(-1, pick).log()).squeeze(-1)
    log_u = torch.rand(batch, k, generator=generator, device=draft_probs.device, dtype=torch.float64).log()
    rejected = F.pad(log_u >= log_ratio, (0, 1), value=True)
    accepted = rejected.int().argmax(dim=-1)                      # argmax returns the first maximum
    where = accepted.view(batch, 1, 1).expand(batch, 1, vocab)
    p_next = target_probs.gather(1, where).squeeze(1)
    q_next = F.pad(draft_probs, (0, 0, 0, 1)).gather(1, where).squeeze(1)
    residual = (p_next - q_next).clamp(min=0)
    race = torch.empty(batch, vocab, dtype=torch.float64, device=draft_probs.device).exponential_(generator=generator)
    return accepted, torch.where(residual > 0, race / residual, torch.inf).argmin(dim=-1)
