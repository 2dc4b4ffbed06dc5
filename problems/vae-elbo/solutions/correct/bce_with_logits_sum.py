# expect: accepted
# F.binary_cross_entropy_with_logits summed over everything and divided by B; the KL written with σ.
import torch
import torch.nn.functional as F


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    sigma = (0.5 * logvar).exp()
    logits = F.linear(mu + sigma * eps, decoder_weight, decoder_bias)
    batch = x.shape[0]
    reconstruction = F.binary_cross_entropy_with_logits(logits, x, reduction="sum")
    kl = 0.5 * (mu.square() + sigma.square() - 1 - logvar).sum()
    return (reconstruction + beta * kl) / batch
