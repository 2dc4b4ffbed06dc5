# expect: wrong_answer
# mistake: gradient_penalty calls backward() on the penalty itself, the way a training step would
# message: called backward() itself
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
    penalty = lam * ((grad.flatten(1).norm(2, dim=1) - 1) ** 2).mean()
    penalty.backward()
    return penalty
