# expect: wrong_answer
# mistake: eps of shape (B,) multiplies the batch as it is, so it broadcasts against the last dimension
# message: broadcasts against the last dimension
# fails-on: images
import torch
import torch.nn.functional as F


def generator_loss(D, x_fake):
    return F.softplus(-D(x_fake)).mean()


def discriminator_loss(D, x_real, x_fake):
    return F.softplus(-D(x_real)).mean() + F.softplus(D(x_fake.detach())).mean()


def gradient_penalty(D, x_real, x_fake, eps, lam=10.0):
    x_hat = (eps * x_real + (1 - eps) * x_fake.detach()).requires_grad_(True)
    (grad,) = torch.autograd.grad(D(x_hat).sum(), x_hat, create_graph=True)
    return lam * ((grad.flatten(1).norm(2, dim=1) - 1) ** 2).mean()
