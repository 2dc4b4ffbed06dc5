"""Per-tensor delayed scaling into float8_e4m3fn, as Transformer Engine's DelayedScaling recipe does it: cast
with the current scale, record the amax, then compute the next scale from the max over the amax history."""
import torch

FP8_MAX = 448.0  # torch.finfo(torch.float8_e4m3fn).max


class DelayedScaler:
    def __init__(self, history_len=1024, margin=0):
        self.margin = margin
        self.scale = torch.tensor(1.0)
        self.history = torch.zeros(history_len)

    @torch.no_grad()
    def cast(self, x):
        scale = self.scale.to(x.device)
        x_fp8 = (x.float() * scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
        scale_inv = 1.0 / scale
        amax = x.abs().amax().float().reshape(1).cpu()
        self.history = torch.cat([self.history[1:], amax])  # the oldest drops out
        window_max = self.history.max()
        if torch.isfinite(window_max) and window_max > 0:
            self.scale = torch.tensor(FP8_MAX) / window_max / 2.0 ** self.margin
        return x_fp8, scale_inv, self.scale.to(x.device).clone()
