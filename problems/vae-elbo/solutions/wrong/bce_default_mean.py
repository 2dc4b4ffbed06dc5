# expect: wrong_answer
# message: not averaged over every pixel
# fails-on: small-batch
# F.binary_cross_entropy_with_logits with its default reduction='mean': the reconstruction is averaged over
# the B·D pixels, so it shrinks by a factor D next to the KL.
import torch
import torch.nn.functional as F


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    z = mu + torch.exp(0.5 * logvar) * eps
    reconstruction = F.binary_cross_entropy_with_logits(F.linear(z, decoder_weight, decoder_bias), x)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(dim=1)
    return reconstruction + beta * kl.mean()
