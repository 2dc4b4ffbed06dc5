# expect: wrong_answer
# mistake: guards against an infinite amax but not a zero one: 448 / 0 makes the scale inf
# message: amax of 0
# fails-on: zeros-then-inf
import torch


class DelayedScaler:
    def __init__(self, history_len=1024, margin=0):
        self.margin = margin
        self.scale = torch.tensor(1.0)
        self.history = torch.zeros(history_len)

    @torch.no_grad()
    def cast(self, x):
        x_fp8 = (x.float() * self.scale).clamp(-448, 448).to(torch.float8_e4m3fn)
        scale_inv = 1.0 / self.scale
        self.history = torch.cat([self.history[1:], x.abs().amax().float().reshape(1)])
        window_max = self.history.max()
        if torch.isfinite(window_max):
            self.scale = 448.0 / window_max / 2.0 ** self.margin
        return x_fp8, scale_inv, self.scale.clone()
