# expect: accepted
# softplus written out stably (max(l, 0) + log1p(exp(-|l|))), sums divided by the batch size, and the
# penalty's x_hat a fresh leaf made with torch.no_grad.
import torch


def softplus(l):
    return l.clamp(min=0) + torch.log1p(torch.exp(-l.abs()))


def generator_loss(D, x_fake):
    logits = D(x_fake).flatten()
    return softplus(-logits).sum() / logits.numel()


def discriminator_loss(D, x_real, x_fake):
    with torch.no_grad():
        fake = x_fake.clone()
    real_logits, fake_logits = D(x_real).flatten(), D(fake).flatten()
    return softplus(-real_logits).sum() / real_logits.numel() + softplus(fake_logits).sum() / fake_logits.numel()


def gradient_penalty(D, x_real, x_fake, eps, lam=10.0):
    with torch.no_grad():
        e = eps[(...,) + (None,) * (x_real.dim() - 1)]
        x_hat = x_fake + e * (x_real - x_fake)
    x_hat.requires_grad = True
    grad = torch.autograd.grad(D(x_hat).sum(), x_hat, create_graph=True)[0]
    penalty = 0.0
    for i in range(grad.shape[0]):
        penalty = penalty + (grad[i].norm() - 1) ** 2
    return lam * penalty / grad.shape[0]
