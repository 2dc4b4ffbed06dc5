# expect: accepted
# The per-sample input gradient with torch.func: grad of D at one sample, vmapped over the batch; D's weights
# are captured, so the ordinary backward still reaches them.
import torch
import torch.nn.functional as F
from torch.func import grad, vmap


def generator_loss(D, x_fake):
    return F.softplus(-D(x_fake)).mean()


def discriminator_loss(D, x_real, x_fake):
    return F.softplus(-D(x_real)).mean() + F.softplus(D(x_fake.detach())).mean()


def gradient_penalty(D, x_real, x_fake, eps, lam=10.0):
    e = eps.view(-1, *[1] * (x_real.dim() - 1))
    x_hat = e * x_real + (1 - e) * x_fake.detach()
    per_sample = vmap(grad(lambda x: D(x.unsqueeze(0)).squeeze()))(x_hat)
    norms = per_sample.flatten(1).norm(dim=1)
    return lam * ((norms - 1) ** 2).mean()
