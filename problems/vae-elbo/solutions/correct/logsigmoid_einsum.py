# expect: accepted
# log p(x | z) = x·logsigmoid(l) + (1 - x)·logsigmoid(-l), per example, with einsum for the decoder.
import torch
import torch.nn.functional as F


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    z = torch.addcmul(mu, torch.exp(logvar / 2), eps)
    logits = torch.einsum("bk,dk->bd", z, decoder_weight) + decoder_bias
    log_likelihood = (x * F.logsigmoid(logits) + (1 - x) * F.logsigmoid(-logits)).sum(-1)
    kl = 0.5 * torch.sum(logvar.exp() + mu * mu - 1 - logvar, dim=-1)
    return torch.mean(beta * kl - log_likelihood)
