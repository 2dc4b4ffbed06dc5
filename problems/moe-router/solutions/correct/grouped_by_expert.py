# expect: accepted
# style: the assignments sorted by expert (a stable sort keeps token order within each expert), each one's rank in its group from the group's start; weights through logsumexp
import torch


def moe_route(logits: torch.Tensor, k: int, capacity: int):
    n_tokens, n_experts = logits.shape
    experts = torch.sort(-logits, dim=-1, stable=True).indices[:, :k]

    flat = experts.reshape(-1)                                   # token-major: token 0's slots first
    order = torch.sort(flat, stable=True).indices                # grouped by expert, token order inside
    counts = torch.bincount(flat, minlength=n_experts)
    starts = torch.cumsum(counts, 0) - counts
    rank = torch.empty_like(flat)
    rank[order] = torch.arange(flat.numel(), device=logits.device) - starts[flat[order]]
    kept = (rank < capacity).reshape(n_tokens, k)

    chosen = logits.gather(-1, experts)
    weights = torch.where(kept, torch.exp(chosen - torch.logsumexp(chosen, dim=-1, keepdim=True)), 0.0)

    log_probs = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    share = counts.to(logits.dtype) / flat.numel()
    aux_loss = n_experts * (share * log_probs.exp().mean(dim=0)).sum()
    return experts, weights, kept, aux_loss
