# expect: accepted
# Transformer Engine's own layout: slot 0 holds this call's amax, torch.max over the rows, then torch.roll and
# slot 0 zeroed for the next call; the guards are torch.where, so nothing leaves the device.
import torch


class DelayedScaler:
    def __init__(self, history_len=1024, margin=0):
        self.history_len, self.margin = history_len, margin
        self.amax_history = None
        self.scale = None

    @torch.no_grad()
    def cast(self, x):
        if self.amax_history is None:
            self.amax_history = torch.zeros(self.history_len, device=x.device)
            self.scale = torch.ones((), device=x.device)
        fp8_max = torch.finfo(torch.float8_e4m3fn).max
        x_fp8 = torch.clamp(x.to(torch.float32) * self.scale, min=-fp8_max, max=fp8_max).to(torch.float8_e4m3fn)
        scale_inv = self.scale.reciprocal()
        self.amax_history[0] = x.abs().max()
        amax = torch.max(self.amax_history, dim=0).values
        self.amax_history.copy_(torch.roll(self.amax_history, -1, 0))
        self.amax_history[0] = 0.0
        sf = (fp8_max / amax) / (2 ** self.margin)
        sf = torch.where(amax > 0.0, sf, self.scale)
        self.scale = torch.where(torch.isfinite(amax), sf, self.scale)
        return x_fp8, scale_inv, self.scale.clone()
