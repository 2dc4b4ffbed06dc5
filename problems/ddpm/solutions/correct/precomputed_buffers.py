# expect: accepted
# The buffers of the common implementations: sqrt(ᾱ), sqrt(1 - ᾱ), ᾱ_prev padded with a 1 in front, the posterior
# variance (0 at t = 0, so adding its noise there adds nothing), gathered per example by an extract() helper.
import torch
import torch.nn.functional as F


def extract(buffer, t, x):
    return buffer.gather(0, t).to(x.dtype).reshape(t.shape[0], *((1,) * (x.dim() - 1)))


class DDPM:
    def __init__(self, num_steps, beta_start=1e-4, beta_end=0.02):
        self.betas = torch.linspace(beta_start, beta_end, num_steps, dtype=torch.float64)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cumprod(self.alphas, dim=0)
        alpha_bars_prev = F.pad(self.alpha_bars[:-1], (1, 0), value=1.0)
        self.sqrt_alpha_bars = self.alpha_bars.sqrt()
        self.sqrt_one_minus_alpha_bars = (1.0 - self.alpha_bars).sqrt()
        self.sqrt_recip_alphas = self.alphas.rsqrt()
        self.eps_coefficient = self.betas / self.sqrt_one_minus_alpha_bars
        self.posterior_std = (self.betas * (1.0 - alpha_bars_prev) / (1.0 - self.alpha_bars)).sqrt()

    def q_sample(self, x0, t, noise):
        return extract(self.sqrt_alpha_bars, t, x0) * x0 + extract(self.sqrt_one_minus_alpha_bars, t, x0) * noise

    def loss(self, model, x0, t, noise):
        return F.mse_loss(model(self.q_sample(x0, t, noise), t), noise)

    def p_sample(self, model, x, t, z):
        steps = torch.full((x.shape[0],), t, dtype=torch.long)
        eps = model(x, steps)
        mean = extract(self.sqrt_recip_alphas, steps, x) * (x - extract(self.eps_coefficient, steps, x) * eps)
        return mean + extract(self.posterior_std, steps, x) * z
