# expect: wrong_answer
# message: σ² = exp(logvar)
# fails-on: small-batch
# Treats logvar as if it were the standard deviation in the KL: σ² = logvar² instead of exp(logvar).
import torch


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    z = mu + torch.exp(0.5 * logvar) * eps
    logits = z @ decoder_weight.T + decoder_bias
    reconstruction = (logits.clamp(min=0) - x * logits + torch.log1p(torch.exp(-logits.abs()))).sum(dim=1)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar ** 2).sum(dim=1)
    return (reconstruction + beta * kl).mean()
