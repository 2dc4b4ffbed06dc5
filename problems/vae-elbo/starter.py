import torch


def vae_loss(x: torch.Tensor, mu: torch.Tensor, logvar: torch.Tensor, eps: torch.Tensor,
             decoder_weight: torch.Tensor, decoder_bias: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    """The negative ELBO of a VAE with a Bernoulli decoder, as a 0-dim tensor.

    x (B, D) in [0, 1]; mu, logvar, eps (B, K); decoder_weight (D, K); decoder_bias (D,).
    z = mu + exp(0.5 * logvar) * eps; logits = z @ decoder_weight.T + decoder_bias;
    per example: BCE-with-logits of logits against x summed over the D pixels
    + beta * KL(N(mu, exp(logvar)) || N(0, I)) summed over the K latent dimensions; then the mean over B.
    Differentiable with respect to mu, logvar, decoder_weight and decoder_bias; no random numbers.
    """
    raise NotImplementedError
