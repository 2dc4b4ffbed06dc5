# expect: wrong_answer
# message: P_e from the combine weights
# fails-on: top-2-no-drops
# Takes P_e from the top-k combine weights instead of the softmax over all E logits: experts nobody chose get
# P_e = 0 and no gradient, so the loss cannot pull tokens towards them.
import torch


def moe_route(logits: torch.Tensor, k: int, capacity: int):
    """(experts, weights, kept, aux_loss) for router logits of shape (tokens, n_experts)."""
    n_tokens, n_experts = logits.shape
    # A stable descending sort keeps equal logits in index order: ties go to the lower expert index.
    experts = logits.sort(dim=-1, descending=True, stable=True).indices[:, :k]
    chosen = logits.gather(-1, experts)
    weights = torch.softmax(chosen, dim=-1)

    # Each assignment's place in its expert's queue, counted in token order (token-major over the k slots).
    one_hot = torch.nn.functional.one_hot(experts, n_experts)                      # (N, k, E)
    place = (one_hot.reshape(n_tokens * k, n_experts).cumsum(0) - 1).reshape(n_tokens, k, n_experts)
    kept = (place * one_hot).sum(-1) < capacity
    weights = weights * kept

    # Switch loss: E * sum_e f_e * P_e, f_e the share of the N*k assignments made to e (before capacity, no
    # gradient), P_e the mean router probability of e over the tokens.
    share = one_hot.sum((0, 1)).to(logits.dtype) / (n_tokens * k)
    mean_probability = torch.zeros(n_tokens, n_experts, dtype=logits.dtype, device=logits.device).scatter(-1, experts, torch.softmax(chosen, dim=-1)).mean(0)
    aux_loss = n_experts * (share * mean_probability).sum()
    return experts, weights, kept, aux_loss
