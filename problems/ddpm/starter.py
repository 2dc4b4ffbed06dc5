import torch


class DDPM:
    """A DDPM with a linear beta schedule. Timesteps are 0-based: t in {0, ..., T - 1}.

    betas = torch.linspace(beta_start, beta_end, T) in float64; alphas = 1 - betas; alpha_bars[t] = alphas[0] * ...
    * alphas[t]. q_sample: x_t = sqrt(alpha_bars[t]) x0 + sqrt(1 - alpha_bars[t]) noise, per example. loss: the mean
    squared error between model(x_t, t) and noise. p_sample: one step from t to t - 1, mean (x - betas[t] /
    sqrt(1 - alpha_bars[t]) eps) / sqrt(alphas[t]) with eps = model(x, t), plus sqrt(beta_tilde_t) z; no noise at t = 0.
    No random numbers: the noise is always an argument.
    """

    def __init__(self, num_steps: int, beta_start: float = 1e-4, beta_end: float = 0.02):
        raise NotImplementedError

    def q_sample(self, x0: torch.Tensor, t: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def loss(self, model, x0: torch.Tensor, t: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def p_sample(self, model, x: torch.Tensor, t: int, z: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError
