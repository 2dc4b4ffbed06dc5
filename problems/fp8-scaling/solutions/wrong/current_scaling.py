# expect: wrong_answer
# mistake: just-in-time (current) scaling: each tensor is cast with 448 / its own amax, ignoring the history
# message: current, just-in-time scaling
# fails-on: history-of-4
import torch


class DelayedScaler:
    def __init__(self, history_len=1024, margin=0):
        self.margin = margin

    @torch.no_grad()
    def cast(self, x):
        amax = x.abs().amax().float()
        scale = 448.0 / amax / 2.0 ** self.margin if torch.isfinite(amax) and amax > 0 else torch.tensor(1.0)
        x_fp8 = (x.float() * scale).clamp(-448, 448).to(torch.float8_e4m3fn)
        return x_fp8, 1.0 / scale, scale.clone()
