# expect: wrong_answer
# message: averaged over the B examples
# fails-on: small-batch
# Sums every term over the batch as well, so the loss (and the learning rate it implies) grows with B.
import torch


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    z = mu + torch.exp(0.5 * logvar) * eps
    logits = z @ decoder_weight.T + decoder_bias
    reconstruction = (logits.clamp(min=0) - x * logits + torch.log1p(torch.exp(-logits.abs()))).sum()
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum()
    return reconstruction + beta * kl
