# expect: accepted
# style: statistics assigned to the buffers by name, Adam, F.mse_loss on targets made (n, 1), gradients clipped
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, d_in: int = 8, d_hidden: int = 64) -> None:
        super().__init__()
        # The inputs' statistics, set by train: forward standardises every input with them.
        self.register_buffer("x_mean", torch.zeros(d_in))
        self.register_buffer("x_std", torch.ones(d_in))
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_hidden), nn.ReLU(),
                                 nn.Linear(d_hidden, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net((x - self.x_mean) / self.x_std)


def train(model, x, y, *, steps, seed):
    model.x_mean = x.mean(dim=0)
    model.x_std = x.std(dim=0)
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(steps):
        batch = torch.randint(0, len(x), (128,), generator=generator, device=x.device)
        loss = F.mse_loss(model(x[batch]), y[batch].unsqueeze(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()


@torch.no_grad()
def evaluate(model, x):
    model.eval()
    return model(x)
