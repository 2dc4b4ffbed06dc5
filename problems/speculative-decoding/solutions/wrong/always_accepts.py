# expect: wrong_answer
# message: every step accepted all k drafts
# fails-on: four-drafts
# Trusts the draft: keeps all k drafted tokens and adds the bonus from p_{k+1}. Fast, and the output is the
# draft model's text, not the target's.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, _ = draft_probs.shape
    accepted = torch.full((batch,), k, dtype=torch.int64, device=draft_probs.device)
    return accepted, torch.multinomial(target_probs[:, k], 1, generator=generator).squeeze(-1)
