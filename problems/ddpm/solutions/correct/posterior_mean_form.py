# expect: accepted
# The schedule by a Python loop, and the reverse mean in its other form: predict x0 from the noise estimate,
# then take the mean of q(x_{t-1} | x_t, x0), c0·x0_hat + ct·x_t (no clipping of x0_hat), which is the same
# mean as (x_t - β_t/sqrt(1 - ᾱ_t)·ε)/sqrt(α_t).
import math

import torch


class DDPM:
    def __init__(self, num_steps, beta_start=1e-4, beta_end=0.02):
        step = (beta_end - beta_start) / (num_steps - 1) if num_steps > 1 else 0.0
        betas = [beta_start + i * step for i in range(num_steps)]
        if num_steps > 1:
            betas[-1] = beta_end
        alpha_bars, product = [], 1.0
        for beta in betas:
            product *= 1.0 - beta
            alpha_bars.append(product)
        self.betas = torch.tensor(betas, dtype=torch.float64)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.tensor(alpha_bars, dtype=torch.float64)

    def q_sample(self, x0, t, noise):
        abar = self.alpha_bars[t].to(x0.dtype)
        return torch.einsum("b,b...->b...", abar.sqrt(), x0) + torch.einsum("b,b...->b...", (1 - abar).sqrt(), noise)

    def loss(self, model, x0, t, noise):
        error = model(self.q_sample(x0, t, noise), t) - noise
        return error.square().sum() / error.numel()

    def p_sample(self, model, x, t, z):
        beta, abar = self.betas[t].item(), self.alpha_bars[t].item()
        abar_prev = self.alpha_bars[t - 1].item() if t > 0 else 1.0
        eps = model(x, torch.full((x.shape[0],), t, dtype=torch.long))
        x0_hat = (x - math.sqrt(1 - abar) * eps) / math.sqrt(abar)
        c0 = math.sqrt(abar_prev) * beta / (1 - abar)
        ct = math.sqrt(1 - beta) * (1 - abar_prev) / (1 - abar)
        sigma = math.sqrt(beta * (1 - abar_prev) / (1 - abar))
        return c0 * x0_hat + ct * x + sigma * z
