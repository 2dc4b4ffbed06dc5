# expect: accepted
# ᾱ through logs (exp of a cumulative sum of log(1 - β)), coefficients broadcast with [:, None, None, None],
# and the step's noise switched off by a multiplier rather than a branch.
import torch


class DDPM:
    def __init__(self, num_steps, beta_start=1e-4, beta_end=0.02):
        self.betas = torch.linspace(beta_start, beta_end, num_steps, dtype=torch.float64)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cumsum(torch.log1p(-self.betas), dim=0).exp()

    def q_sample(self, x0, t, noise):
        abar = self.alpha_bars[t][:, None, None, None]
        return (abar.sqrt() * x0.double() + (-torch.expm1(abar.log())).sqrt() * noise.double()).to(x0.dtype)

    def loss(self, model, x0, t, noise):
        return torch.mean((noise - model(self.q_sample(x0, t, noise), t)) ** 2)

    def p_sample(self, model, x, t, z):
        abar = self.alpha_bars[t]
        abar_prev = self.alpha_bars[t - 1] if t > 0 else torch.ones((), dtype=torch.float64)
        eps = model(x, torch.tensor([t] * x.shape[0]))
        mean = (x - (self.betas[t] / (1 - abar).sqrt()).to(x.dtype) * eps) * self.alphas[t].rsqrt().to(x.dtype)
        sigma = (self.betas[t] * (1 - abar_prev) / (1 - abar)).sqrt().to(x.dtype)
        return mean + sigma * (t > 0) * z
