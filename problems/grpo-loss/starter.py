import torch


def grpo_loss(logps: torch.Tensor, old_logps: torch.Tensor, ref_logps: torch.Tensor, rewards: torch.Tensor,
              mask: torch.Tensor, group_size: int, clip_eps: float = 0.2, beta: float = 0.04,
              eps: float = 1e-4) -> torch.Tensor:
    """The GRPO loss of B = P * G sampled completions (G per prompt, consecutive rows), as a 0-dim tensor.

    logps, old_logps, ref_logps: (B, T) per-token log-probs under the policy being trained, the policy that
    sampled the completions and the frozen reference; rewards: (B,); mask: (B, T) bool, True at completion
    tokens. Advantage A = (r - group mean) / (group sample std + eps); per token
    -(min(ratio * A, clamp(ratio, 1 - clip_eps, 1 + clip_eps) * A) - beta * k3), ratio = exp(logps - old_logps),
    k3 = exp(ref - logps) - (ref - logps) - 1; the mean over each sequence's masked tokens, then over sequences.
    Only logps may receive a gradient; do not modify the inputs.
    """
    raise NotImplementedError
