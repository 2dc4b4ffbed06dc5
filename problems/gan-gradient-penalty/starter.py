import torch
from torch import nn


def generator_loss(D: nn.Module, x_fake: torch.Tensor) -> torch.Tensor:
    """Non-saturating generator loss: mean over the batch of -log sigmoid(D(x_fake)), a 0-dim tensor.

    D maps a batch (B, ...) to logits (B, 1). x_fake is the generator's output, attached to its graph: the
    loss must send a gradient into it. Logits can reach magnitudes of a few hundred: write it stably.
    """
    raise NotImplementedError


def discriminator_loss(D: nn.Module, x_real: torch.Tensor, x_fake: torch.Tensor) -> torch.Tensor:
    """mean -log sigmoid(D(x_real)) + mean -log(1 - sigmoid(D(x_fake))), a 0-dim tensor.

    It trains D only: no gradient may reach x_fake.
    """
    raise NotImplementedError


def gradient_penalty(D: nn.Module, x_real: torch.Tensor, x_fake: torch.Tensor, eps: torch.Tensor,
                     lam: float = 10.0) -> torch.Tensor:
    """WGAN-GP: lam * mean_i (||grad_x D(x_hat)_i||_2 - 1)^2, x_hat = eps * x_real + (1 - eps) * x_fake.

    eps has shape (B,), one per sample; the norm is per sample over all non-batch dimensions. The result is a
    0-dim tensor that backward() differentiates with respect to D's weights; no gradient may reach x_fake, and
    no backward() is run here.
    """
    raise NotImplementedError
