# expect: wrong_answer
# mistake: takes the largest value from the wrong format, E5M2's 57344, so every later cast saturates
# message: E5M2
# fails-on: history-of-4
import torch

FP8_MAX = torch.finfo(torch.float8_e5m2).max


class DelayedScaler:
    def __init__(self, history_len=1024, margin=0):
        self.margin = margin
        self.scale = torch.tensor(1.0)
        self.history = torch.zeros(history_len)

    @torch.no_grad()
    def cast(self, x):
        x_fp8 = (x.float() * self.scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
        scale_inv = 1.0 / self.scale
        self.history = torch.cat([self.history[1:], x.abs().amax().float().reshape(1)])
        window_max = self.history.max()
        if torch.isfinite(window_max) and window_max > 0:
            self.scale = FP8_MAX / window_max / 2.0 ** self.margin
        return x_fp8, scale_inv, self.scale.clone()
