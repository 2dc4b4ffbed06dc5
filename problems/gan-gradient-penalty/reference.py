import torch
import torch.nn.functional as F


def generator_loss(D, x_fake):
    """Non-saturating: mean of -log sigmoid(D(x_fake)) = softplus(-logit)."""
    return F.softplus(-D(x_fake)).mean()


def discriminator_loss(D, x_real, x_fake):
    """mean softplus(-D(x_real)) + mean softplus(D(x_fake)), the fakes detached: this loss trains D only."""
    return F.softplus(-D(x_real)).mean() + F.softplus(D(x_fake.detach())).mean()


def gradient_penalty(D, x_real, x_fake, eps, lam=10.0):
    """WGAN-GP: lam * mean_i (||grad D(x_hat_i)||_2 - 1)^2 on x_hat = eps * x_real + (1 - eps) * x_fake."""
    e = eps.view(-1, *[1] * (x_real.dim() - 1))
    x_hat = (e * x_real + (1 - e) * x_fake.detach()).requires_grad_(True)
    d_hat = D(x_hat)
    (grad,) = torch.autograd.grad(d_hat.sum(), x_hat, create_graph=True)
    norms = grad.flatten(1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean()
