import torch


class DDPM:
    """A linear-schedule DDPM: the schedule, the forward process q(x_t | x_0), the noise-prediction loss and one
    ancestral step of p(x_{t-1} | x_t). Timesteps are 0-based: t in {0, ..., T-1}."""

    def __init__(self, num_steps: int, beta_start: float = 1e-4, beta_end: float = 0.02):
        self.betas = torch.linspace(beta_start, beta_end, num_steps, dtype=torch.float64)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cumprod(self.alphas, dim=0)  # alpha_bars[t] = alphas[0] * ... * alphas[t]

    def q_sample(self, x0, t, noise):
        # One coefficient per example, shaped (B, 1, ..., 1) so that it broadcasts over the example, not the width.
        abar = self.alpha_bars[t].reshape(-1, *[1] * (x0.dim() - 1))
        return (abar.sqrt() * x0 + (1.0 - abar).sqrt() * noise).to(x0.dtype)

    def loss(self, model, x0, t, noise):
        x_t = self.q_sample(x0, t, noise)
        return (model(x_t, t) - noise).pow(2).mean()

    def p_sample(self, model, x, t, z):
        beta, alpha, abar = self.betas[t].item(), self.alphas[t].item(), self.alpha_bars[t].item()
        eps = model(x, torch.full((x.shape[0],), t, dtype=torch.int64))
        mean = (x - beta / (1.0 - abar) ** 0.5 * eps) / alpha ** 0.5
        if t == 0:
            return mean  # the last step returns the mean: no noise on the final sample
        # The posterior variance beta_tilde_t = beta_t (1 - abar_{t-1}) / (1 - abar_t).
        variance = beta * (1.0 - self.alpha_bars[t - 1].item()) / (1.0 - abar)
        return mean + variance ** 0.5 * z
