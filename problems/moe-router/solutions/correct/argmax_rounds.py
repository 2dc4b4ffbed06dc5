# expect: accepted
# style: k rounds of argmax with the chosen experts masked out (argmax returns the first maximum, so ties go to the lower index); capacity by a loop over the experts; the loss from bincount
import torch


def moe_route(logits: torch.Tensor, k: int, capacity: int):
    n_tokens, n_experts = logits.shape
    masked = logits.detach().clone()
    picks = []
    for _ in range(k):
        best = masked.argmax(dim=-1)
        picks.append(best)
        masked.scatter_(-1, best[:, None], float("-inf"))
    experts = torch.stack(picks, dim=-1)

    kept = torch.zeros(n_tokens, k, dtype=torch.bool, device=logits.device)
    for expert in range(n_experts):
        tokens, slots = (experts == expert).nonzero(as_tuple=True)   # row-major: in token order
        kept[tokens[:capacity], slots[:capacity]] = True

    chosen = logits.gather(-1, experts)
    weights = torch.softmax(chosen, dim=-1) * kept

    counts = torch.bincount(experts.reshape(-1), minlength=n_experts).to(logits.dtype)
    aux_loss = n_experts * torch.dot(counts / (n_tokens * k), torch.softmax(logits, dim=-1).mean(dim=0))
    return experts, weights, kept, aux_loss
