# expect: wrong_answer
# message: modified
# fails-on: small-batch
# Turns logvar into σ in place to save a temporary: the loss is right, and the caller's logvar is destroyed
# (an encoder's output that autograd, or the next line of the training step, still needs).
import torch


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(dim=1)
    std = logvar.mul_(0.5).exp_()
    z = mu + std * eps
    logits = z @ decoder_weight.T + decoder_bias
    reconstruction = (logits.clamp(min=0) - x * logits + torch.log1p(torch.exp(-logits.abs()))).sum(dim=1)
    return (reconstruction + beta * kl).mean()
