# expect: forbidden
# message: aten::randn_like
# The textbook VAE forward draws its own noise; here the noise is the input eps, so that the loss is a
# deterministic function the judge can check (and a training step would pass its eps in the same way).
import torch


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    std = torch.exp(0.5 * logvar)
    z = mu + std * torch.randn_like(std)
    logits = z @ decoder_weight.T + decoder_bias
    reconstruction = (logits.clamp(min=0) - x * logits + torch.log1p(torch.exp(-logits.abs()))).sum(dim=1)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(dim=1)
    return (reconstruction + beta * kl).mean()
