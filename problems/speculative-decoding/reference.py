import torch


def speculative_step(draft_probs: torch.Tensor, target_probs: torch.Tensor, draft_tokens: torch.Tensor, *,
                     generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    batch, k, _ = draft_probs.shape
    # Accept draft i when u_i < p_i(x_i) / q_i(x_i): u < 1, so a ratio of 1 or more always accepts (the min),
    # and p == q gives a ratio of exactly 1 (u * q < p could round u * q up to q and reject).
    p_x = target_probs[:, :k].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = draft_probs.gather(-1, draft_tokens[..., None]).squeeze(-1)
    u = torch.rand(batch, k, generator=generator, device=draft_probs.device, dtype=draft_probs.dtype)
    # The accepted prefix ends at the first rejection: count the leading run of accepts.
    accepted = (u < p_x / q_x).long().cumprod(dim=-1).sum(dim=-1)
    # The next token comes from position `accepted`: the residual max(0, p - q) after a rejection, or p_{k+1}
    # itself when all k were accepted (a draft distribution of zeros past the last draft gives exactly that).
    rows = torch.arange(batch, device=draft_probs.device)
    p_next = target_probs[rows, accepted]
    q_next = torch.where((accepted < k)[:, None], draft_probs[rows, accepted.clamp(max=k - 1)], 0.0)
    residual = (p_next - q_next).clamp(min=0)
    # torch.multinomial normalises each row itself; a rejection leaves a residual of positive mass.
    next_token = torch.multinomial(residual, 1, generator=generator).squeeze(-1)
    return accepted, next_token
