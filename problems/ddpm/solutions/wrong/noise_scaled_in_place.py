# expect: wrong_answer
# message: modified
# fails-on: ten-steps
# Scales the caller's noise in place to save a temporary: x_t is right, and the noise the loss must regress on
# (and the caller's next use of it) is destroyed.
import torch


class DDPM:
    def __init__(self, num_steps, beta_start=1e-4, beta_end=0.02):
        self.betas = torch.linspace(beta_start, beta_end, num_steps, dtype=torch.float64)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cumprod(self.alphas, dim=0)

    def q_sample(self, x0, t, noise):
        abar = self.alpha_bars[t].view(-1, 1, 1, 1)
        return noise.mul_((1 - abar).sqrt()).add_(abar.sqrt() * x0)

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
