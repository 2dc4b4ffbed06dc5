# expect: accepted
# style: a float (N, k, E) dispatch mask as Switch and GShard build it; the softmax by hand with the row maximum subtracted; the loss from the mask's means
import torch


def stable_softmax(z: torch.Tensor) -> torch.Tensor:
    e = torch.exp(z - z.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)


def moe_route(logits: torch.Tensor, k: int, capacity: int):
    n_tokens, n_experts = logits.shape
    _, experts = logits.sort(dim=-1, descending=True, stable=True)
    experts = experts[:, :k].contiguous()

    mask = torch.zeros(n_tokens, k, n_experts, dtype=logits.dtype, device=logits.device)
    mask.scatter_(-1, experts[..., None], 1.0)
    position = mask.flatten(0, 1).cumsum(dim=0).view(n_tokens, k, n_experts)   # 1-based place in the queue
    kept = ((position * mask).sum(-1) <= capacity)

    weights = stable_softmax(logits.gather(-1, experts)) * kept.to(logits.dtype)

    fraction = mask.mean(dim=(0, 1))          # share of the N * k assignments, no gradient
    probability = stable_softmax(logits).mean(dim=0)
    aux_loss = (fraction * probability).sum() * n_experts
    return experts, weights, kept, aux_loss
