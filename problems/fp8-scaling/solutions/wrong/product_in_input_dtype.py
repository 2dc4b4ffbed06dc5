# expect: wrong_answer
# mistake: x * scale computed in x's bfloat16 (a 0-dim float32 scale does not promote it), then rounded again to fp8
# message: half precision
# fails-on: bfloat16-activations
import torch


class DelayedScaler:
    def __init__(self, history_len=1024, margin=0):
        self.margin = margin
        self.scale = torch.tensor(1.0)
        self.history = torch.zeros(history_len)

    @torch.no_grad()
    def cast(self, x):
        x_fp8 = (x * self.scale).clamp(-448, 448).to(torch.float8_e4m3fn)
        scale_inv = 1.0 / self.scale
        self.history = torch.cat([self.history[1:], x.abs().amax().float().reshape(1)])
        window_max = self.history.max()
        if torch.isfinite(window_max) and window_max > 0:
            self.scale = 448.0 / window_max / 2.0 ** self.margin
        return x_fp8, scale_inv, self.scale.clone()
