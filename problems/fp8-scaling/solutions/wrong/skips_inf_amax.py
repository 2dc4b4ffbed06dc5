# expect: wrong_answer
# mistake: an infinite amax is kept out of the history, so the scale unfreezes on the very next call
# message: recorded as it is
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
        amax = x.abs().amax().float()
        if not torch.isfinite(amax):
            return x_fp8, scale_inv, self.scale.clone()
        self.history = torch.cat([self.history[1:], amax.reshape(1)])
        window_max = self.history.max()
        if window_max > 0:
            self.scale = 448.0 / window_max / 2.0 ** self.margin
        return x_fp8, scale_inv, self.scale.clone()
