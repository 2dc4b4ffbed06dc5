# expect: wrong_answer
# message: GShard
# fails-on: capacity-drops
# Queues the assignments slot-major, every token's first choice before any token's second choice, as GShard
# does; the statement pins token order, so a later token's first choice is dropped before an earlier token's
# second choice.
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
    place = (one_hot.transpose(0, 1).reshape(k * n_tokens, n_experts).cumsum(0) - 1).reshape(k, n_tokens, n_experts).transpose(0, 1)
    kept = (place * one_hot).sum(-1) < capacity
    weights = weights * kept

    # Switch loss: E * sum_e f_e * P_e, f_e the share of the N*k assignments made to e (before capacity, no
    # gradient), P_e the mean router probability of e over the tokens.
    share = one_hot.sum((0, 1)).to(logits.dtype) / (n_tokens * k)
    mean_probability = torch.softmax(logits, dim=-1).mean(0)
    aux_loss = n_experts * (share * mean_probability).sum()
    return experts, weights, kept, aux_loss
