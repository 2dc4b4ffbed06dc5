# expect: wrong_answer
# message: k times the loss
# fails-on: top-2-no-drops
# Divides the expert counts by the number of tokens, as Hugging Face's Mixtral loss does: every f_e is k times
# too large, and so is the loss, which is then k, not 1, at uniform routing.
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
    share = one_hot.sum((0, 1)).to(logits.dtype) / n_tokens
    mean_probability = torch.softmax(logits, dim=-1).mean(0)
    aux_loss = n_experts * (share * mean_probability).sum()
    return experts, weights, kept, aux_loss
