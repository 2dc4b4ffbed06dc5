import torch


def vae_loss(x: torch.Tensor, mu: torch.Tensor, logvar: torch.Tensor, eps: torch.Tensor,
             decoder_weight: torch.Tensor, decoder_bias: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    # Reparameterisation: the noise is an input, so z is a differentiable function of mu and logvar.
    z = mu + torch.exp(0.5 * logvar) * eps
    logits = z @ decoder_weight.T + decoder_bias
    # Bernoulli log-likelihood from logits: softplus(l) - x*l = max(l, 0) - x*l + log1p(exp(-|l|)), never
    # log(sigmoid(l)), which is log(0) once sigmoid rounds to 0 or 1.
    reconstruction = (logits.clamp(min=0) - x * logits + torch.log1p(torch.exp(-logits.abs()))).sum(dim=1)
    # KL(N(mu, exp(logvar)) || N(0, I)) in closed form, summed over the latent dimensions.
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)
    return (reconstruction + beta * kl).mean()
