# expect: accepted
# style: torch.std_mean for the statistics, SGD with a linear warm-up of its learning rate, targets flattened against predictions
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
    std, mean = torch.std_mean(x, dim=0)
    model.get_buffer("x_mean").copy_(mean)
    model.get_buffer("x_std").copy_(std)
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=min(50, steps))
    for _ in range(steps):
        batch = torch.randperm(len(x), generator=generator, device=x.device)[:64]
        loss = F.mse_loss(model(x[batch]).flatten(), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        warmup.step()


def evaluate(model, x):
    model.eval()
    with torch.inference_mode():
        return model(x)
