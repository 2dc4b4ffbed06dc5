# expect: wrong_answer
# message: Use the logits form
# fails-on: confident-decoder
# The textbook BCE on probabilities: sigmoid first, then logs. A confident decoder makes sigmoid round to
# exactly 1, log(1 - 1) = -inf, and a pixel with x = 1 gives 0·(-inf) = NaN.
import torch


def vae_loss(x, mu, logvar, eps, decoder_weight, decoder_bias, beta=1.0):
    z = mu + torch.exp(0.5 * logvar) * eps
    p = torch.sigmoid(z @ decoder_weight.T + decoder_bias)
    reconstruction = -(x * torch.log(p) + (1 - x) * torch.log(1 - p)).sum(dim=1)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(dim=1)
    return (reconstruction + beta * kl).mean()
