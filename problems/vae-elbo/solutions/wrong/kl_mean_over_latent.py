# expect: wrong_answer
# message: summed over the latent dimensions
# fails-on: small-batch
# Averages the KL over the latent dimensions (torch.mean everywhere), so it weighs 1/K of what it should.
import torch


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    z = mu + torch.exp(0.5 * logvar) * eps
    logits = z @ decoder_weight.T + decoder_bias
    reconstruction = (logits.clamp(min=0) - x * logits + torch.log1p(torch.exp(-logits.abs()))).sum(dim=1)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).mean(dim=1)
    return (reconstruction + beta * kl).mean()
