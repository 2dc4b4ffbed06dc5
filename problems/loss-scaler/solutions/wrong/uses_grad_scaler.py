# expect: forbidden
# mistake: wraps torch.amp.GradScaler, the one-call answer the problem asks to write by hand
# message: aten::_amp_
# fails-on: one-overflow-then-recovery
import torch


class LossScaler:
    def __init__(self, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self.options = dict(init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                            growth_interval=growth_interval)
        self.scaler = None

    def scale(self, loss):
        if self.scaler is None:
            self.scaler = torch.amp.GradScaler(loss.device.type, **self.options)
        return self.scaler.scale(loss)

    def step(self, optimizer):
        self.scaler.unscale_(optimizer)
        found = sum(v.item() for v in self.scaler._found_inf_per_device(optimizer).values())
        self.scaler.step(optimizer)
        return not found

    def update(self):
        self.scaler.update()

    def get_scale(self):
        return self.scaler.get_scale() if self.scaler else self.options["init_scale"]
