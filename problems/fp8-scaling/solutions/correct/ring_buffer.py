# expect: accepted
# A preallocated ring buffer with a write pointer (no tensor is made per call but the outputs), the amax read
# from aminmax, the product written into a float32 buffer and saturated in place.
import torch


class DelayedScaler:
    def __init__(self, history_len=1024, margin=0):
        self.ring = torch.zeros(history_len, dtype=torch.float32)
        self.next = 0
        self.divisor = float(2 ** margin)
        self.scale = torch.tensor(1.0, dtype=torch.float32)

    def cast(self, x):
        with torch.no_grad():
            if self.ring.device != x.device:
                self.ring, self.scale = self.ring.to(x.device), self.scale.to(x.device)
            scaled = torch.empty(x.shape, dtype=torch.float32, device=x.device).copy_(x)  # exact
            x_fp8 = scaled.mul_(self.scale).clamp_(-448.0, 448.0).to(torch.float8_e4m3fn)
            used = self.scale.clone()
            low, high = torch.aminmax(x)
            self.ring[self.next] = torch.maximum(low.abs(), high.abs()).float()
            self.next = (self.next + 1) % len(self.ring)
            peak = self.ring.max()
            if bool(torch.isfinite(peak)) and bool(peak > 0):
                self.scale = torch.tensor(448.0, device=x.device) / peak / self.divisor
        return x_fp8, 1.0 / used, self.scale.clone()
