# expect: wrong_answer
# message: torch.linspace(beta_start, beta_end, T)
# fails-on: ten-steps
# Builds the linear schedule as beta_start + (beta_end - beta_start) * t / T: the last beta falls one step short
# of beta_end.
import torch


class DDPM:
    def __init__(self, num_steps, beta_start=1e-4, beta_end=0.02):
        self.betas = beta_start + (beta_end - beta_start) * torch.arange(num_steps, dtype=torch.float64) / num_steps
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cumprod(self.alphas, dim=0)

    def q_sample(self, x0, t, noise):
        abar = self.alpha_bars[t].view(-1, 1, 1, 1)
        return (abar.sqrt() * x0 + (1 - abar).sqrt() * noise).to(x0.dtype)

    def loss(self, model, x0, t, noise):
        return ((model(self.q_sample(x0, t, noise), t) - noise) ** 2).mean()

    def p_sample(self, model, x, t, z):
        beta, alpha, abar = self.betas[t], self.alphas[t], self.alpha_bars[t]
        eps = model(x, torch.full((x.shape[0],), t, dtype=torch.long))
        mean = (x - beta / (1 - abar).sqrt() * eps) / alpha.sqrt()
        if t == 0:
            return mean
        variance = beta * (1 - self.alpha_bars[t - 1]) / (1 - abar)
        return mean + variance.sqrt() * z
