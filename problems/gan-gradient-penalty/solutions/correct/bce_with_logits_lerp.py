# expect: accepted
# The losses as binary cross-entropy on logits with targets 1 and 0; x_hat by torch.lerp; the input gradient
# with grad_outputs of ones instead of a sum.
import torch
import torch.nn.functional as F


def generator_loss(D, x_fake):
    logits = D(x_fake)
    return F.binary_cross_entropy_with_logits(logits, torch.ones_like(logits))


def discriminator_loss(D, x_real, x_fake):
    real, fake = D(x_real), D(x_fake.detach())
    return (F.binary_cross_entropy_with_logits(real, torch.ones_like(real))
            + F.binary_cross_entropy_with_logits(fake, torch.zeros_like(fake)))


def gradient_penalty(D, x_real, x_fake, eps, lam=10.0):
    weight = eps.reshape((-1,) + (1,) * (x_real.dim() - 1))
    x_hat = torch.lerp(x_fake.detach(), x_real, weight).requires_grad_()  # x_fake + eps * (x_real - x_fake)
    out = D(x_hat)
    grad = torch.autograd.grad(outputs=out, inputs=x_hat, grad_outputs=torch.ones_like(out), create_graph=True,
                               retain_graph=True)[0]
    norms = torch.linalg.vector_norm(grad, ord=2, dim=tuple(range(1, grad.dim())))
    return lam * (norms - 1).square().mean()
