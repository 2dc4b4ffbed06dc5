# expect: wrong_answer
# mistake: the history never evicts: it keeps the max of every amax seen so far
# message: drops out
# fails-on: history-of-4
import torch


class DelayedScaler:
    def __init__(self, history_len=1024, margin=0):
        self.margin = margin
        self.scale = torch.tensor(1.0)
        self.amax = torch.tensor(0.0)

    @torch.no_grad()
    def cast(self, x):
        x_fp8 = (x.float() * self.scale).clamp(-448, 448).to(torch.float8_e4m3fn)
        scale_inv = 1.0 / self.scale
        self.amax = torch.maximum(self.amax, x.abs().amax().float())
        if torch.isfinite(self.amax) and self.amax > 0:
            self.scale = 448.0 / self.amax / 2.0 ** self.margin
        return x_fp8, scale_inv, self.scale.clone()
