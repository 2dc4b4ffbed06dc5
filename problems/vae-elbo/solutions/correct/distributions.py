# expect: accepted
# torch.distributions: the KL in closed form by kl_divergence, the Bernoulli log-likelihood from logits.
import torch
import torch.nn.functional as F
from torch.distributions import Bernoulli, Normal, kl_divergence


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    std = torch.exp(0.5 * logvar)
    z = mu + std * eps
    decoder = Bernoulli(logits=F.linear(z, decoder_weight, decoder_bias), validate_args=False)
    reconstruction = -decoder.log_prob(x).sum(dim=1)
    prior = Normal(torch.zeros_like(mu), torch.ones_like(mu))
    kl = kl_divergence(Normal(mu, std), prior).sum(dim=1)
    return (reconstruction + beta * kl).mean()
