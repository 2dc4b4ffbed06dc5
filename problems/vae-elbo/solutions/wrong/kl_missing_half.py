# expect: wrong_answer
# message: half of that sum
# fails-on: small-batch
# The closed-form KL without its factor 0.5.
import torch


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    z = mu + torch.exp(0.5 * logvar) * eps
    logits = z @ decoder_weight.T + decoder_bias
    reconstruction = (logits.clamp(min=0) - x * logits + torch.log1p(torch.exp(-logits.abs()))).sum(dim=1)
    kl = -(1 + logvar - mu ** 2 - logvar.exp()).sum(dim=1)
    return (reconstruction + beta * kl).mean()
