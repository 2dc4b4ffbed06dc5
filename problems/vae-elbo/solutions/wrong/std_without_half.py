# expect: wrong_answer
# message: standard deviation σ = exp(0.5·logvar)
# fails-on: small-batch
# Scales the noise by the variance exp(logvar) rather than the standard deviation exp(0.5·logvar).
import torch


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    z = mu + torch.exp(logvar) * eps
    logits = z @ decoder_weight.T + decoder_bias
    reconstruction = (logits.clamp(min=0) - x * logits + torch.log1p(torch.exp(-logits.abs()))).sum(dim=1)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(dim=1)
    return (reconstruction + beta * kl).mean()
