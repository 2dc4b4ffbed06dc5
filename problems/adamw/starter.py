import torch


class AdamW:
    """AdamW (decoupled weight decay, bias correction) with optional global-norm gradient clipping.

    `state[p]["exp_avg"]` and `state[p]["exp_avg_sq"]` hold each parameter's moments.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, max_grad_norm=None):
        self.params = list(params)
        self.state = {}
        raise NotImplementedError

    @torch.no_grad()
    def step(self) -> torch.Tensor:
        """Clip the gradients by their global norm (if max_grad_norm is set), update every parameter with a
        gradient in place, and return the norm before clipping as a 0-dim tensor."""
        raise NotImplementedError
