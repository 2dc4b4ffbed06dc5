# expect: accepted
# The ELBO computed as an ELBO (log-likelihood minus beta·KL), negated at the end; BCE as softplus(l) - x·l.
# F.softplus returns l itself above its threshold (20 by default), an error of exp(-20) ≈ 2e-9 per pixel that
# float64 sees in the gradient; above 40, exp(-l) is below float64's rounding.
import torch
import torch.nn.functional as F


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    z = mu + eps * torch.sqrt(torch.exp(logvar))
    logits = z.matmul(decoder_weight.t()).add(decoder_bias)
    log_likelihood = (x * logits - F.softplus(logits, threshold=40.0)).sum(dim=1)
    neg_kl = 0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)
    elbo = log_likelihood + beta * neg_kl
    return -elbo.mean()
