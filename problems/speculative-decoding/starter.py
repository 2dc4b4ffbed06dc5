import torch


def speculative_step(draft_probs: torch.Tensor, target_probs: torch.Tensor, draft_tokens: torch.Tensor, *,
                     generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """One draft-and-verify step for each row of a batch.

    draft_probs (batch, k, vocab): q_1..q_k, the draft model's distributions the drafts were drawn from.
    target_probs (batch, k + 1, vocab): p_1..p_{k+1}, the target model's distributions at the same positions.
    draft_tokens (batch, k) int64: x_1..x_k, x_i drawn from q_i.

    Accept x_i with probability min(1, p_i(x_i) / q_i(x_i)), in order, up to the first rejection; after it,
    draw the next token from max(0, p_i - q_i) normalised; if all k are accepted, draw a bonus token from
    p_{k+1}. Return (accepted, next_token), int64 (batch,) each. Every random number comes from `generator`.
    """
    raise NotImplementedError
