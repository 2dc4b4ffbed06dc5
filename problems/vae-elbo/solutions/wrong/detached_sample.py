# expect: wrong_answer
# message: that is the reparameterisation trick
# fails-on: small-batch
# Builds the sample under no_grad, as if sampling were not differentiable: the values are right, but the
# encoder's mu and logvar get only the KL's gradient, never the reconstruction's.
import torch


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    with torch.no_grad():
        z = mu + torch.exp(0.5 * logvar) * eps
    logits = z @ decoder_weight.T + decoder_bias
    reconstruction = (logits.clamp(min=0) - x * logits + torch.log1p(torch.exp(-logits.abs()))).sum(dim=1)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(dim=1)
    return (reconstruction + beta * kl).mean()
