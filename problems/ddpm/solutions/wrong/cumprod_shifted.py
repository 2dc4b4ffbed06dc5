# expect: wrong_answer
# message: whose first entry is alphas[0] = 1 - beta_start
# fails-on: ten-steps
# Takes alpha_bars as the product of the alphas before t (an exclusive cumprod starting at 1): that is the
# posterior's alpha_bars_prev, one index off.
import torch


class DDPM:
    def __init__(self, num_steps, beta_start=1e-4, beta_end=0.02):
        self.betas = torch.linspace(beta_start, beta_end, num_steps, dtype=torch.float64)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cat([torch.ones(1, dtype=torch.float64), torch.cumprod(self.alphas, dim=0)[:-1]])

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
