# expect: accepted
# -logsigmoid for both terms, the discriminator run once on real and fake concatenated, the norm as the square
# root of a sum of squares.
import torch
import torch.nn.functional as F


def generator_loss(D, x_fake):
    return -F.logsigmoid(D(x_fake)).mean()


def discriminator_loss(D, x_real, x_fake):
    logits = D(torch.cat([x_real, x_fake.detach()]))
    real, fake = logits[: len(x_real)], logits[len(x_real):]
    return -F.logsigmoid(real).mean() - F.logsigmoid(-fake).mean()


def gradient_penalty(D, x_real, x_fake, eps, lam=10.0):
    shape = [len(eps)] + [1] * (x_real.dim() - 1)
    e = eps.view(shape)
    x_hat = e * x_real.detach() + (1.0 - e) * x_fake.detach()
    x_hat.requires_grad_(True)
    scores = D(x_hat)
    (grad,) = torch.autograd.grad(scores.sum(), [x_hat], create_graph=True)
    norms = grad.reshape(len(grad), -1).pow(2).sum(dim=1).sqrt()
    return lam * torch.mean((norms - 1.0) ** 2)
