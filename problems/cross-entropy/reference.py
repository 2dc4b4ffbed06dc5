import torch


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100,
                  label_smoothing: float = 0.0) -> torch.Tensor:
    # Rows whose target is ignore_index count for nothing: not in the sum, not in the number averaged over.
    counted = target != ignore_index
    # Gather needs a valid class for every row, ignored ones included; their loss is masked out below.
    safe_target = torch.where(counted, target, torch.zeros_like(target))
    # log p = x - logsumexp(x), with the maximum subtracted first so that nothing overflows.
    shifted = logits - logits.amax(dim=1, keepdim=True)
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    nll = -log_probs.gather(1, safe_target[:, None]).squeeze(1)
    # Label smoothing mixes the one-hot target with the uniform distribution over all C classes.
    uniform = -log_probs.mean(dim=1)
    per_token = (1.0 - label_smoothing) * nll + label_smoothing * uniform
    return torch.where(counted, per_token, torch.zeros_like(per_token)).sum() / counted.sum()
