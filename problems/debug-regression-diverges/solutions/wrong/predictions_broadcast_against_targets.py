# expect: wrong_answer
# mistake: (64, 1) predictions minus (64,) targets broadcast to a (64, 64) matrix: every prediction is fitted to every target, so the model learns their mean
# message: held out relative mse
import torch
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


def train(model: Model, x: torch.Tensor, y: torch.Tensor, *, steps: int, seed: int) -> None:
    """Train model in place on inputs x (n, d_in) and targets y (n,), for `steps` steps."""
    generator = torch.Generator(device=x.device).manual_seed(seed)
    with torch.no_grad():
        model.x_mean.copy_(x.mean(0))
        model.x_std.copy_(x.std(0))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model.train()
    for step in range(steps):
        batch = torch.randint(0, len(x), (64,), generator=generator, device=x.device)
        loss = ((model(x[batch]) - y[batch]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    """The trained model's predictions (n, 1) for inputs x."""
    model.eval()
    with torch.no_grad():
        return model(x)

