# expect: wrong_answer
# mistake: the one-sided penalty max(0, ||g|| - 1)^2, which leaves norms below 1 alone
# message: two-sided
# fails-on: images
import torch
import torch.nn.functional as F


def generator_loss(D, x_fake):
    return F.softplus(-D(x_fake)).mean()


def discriminator_loss(D, x_real, x_fake):
    return F.softplus(-D(x_real)).mean() + F.softplus(D(x_fake.detach())).mean()


def gradient_penalty(D, x_real, x_fake, eps, lam=10.0):
    e = eps.view(-1, *[1] * (x_real.dim() - 1))
    x_hat = (e * x_real + (1 - e) * x_fake.detach()).requires_grad_(True)
    (grad,) = torch.autograd.grad(D(x_hat).sum(), x_hat, create_graph=True)
    return lam * ((grad.flatten(1).norm(2, dim=1) - 1).clamp(min=0) ** 2).mean()
