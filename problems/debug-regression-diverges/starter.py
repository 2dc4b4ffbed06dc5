"""A small regression model whose loss turns to NaN. Fix the script: keep Model's parameter and buffer names,
and train's and evaluate's signatures."""
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
    mean, std = x.mean(0), x.std(0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model.train()
    for step in range(steps):
        batch = torch.randint(0, len(x), (64,), generator=generator, device=x.device)
        loss = ((model(x[batch]) - y[batch]) ** 2).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0 and (step < 50 or step % 50 == 0):
            print(f"step {step}: loss {loss.item():.4g}")


def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    """The trained model's predictions (n, 1) for inputs x."""
    model.eval()
    with torch.no_grad():
        return model(x)


if __name__ == "__main__":
    # Data like the judge's: eight features of very different scales and offsets, a smooth target of about unit
    # variance, a little noise.
    torch.manual_seed(0)
    scale, offset = torch.logspace(0, 3, 8), torch.linspace(-500, 500, 8)
    directions = torch.randn(8, 16) / 8 ** 0.5
    weights = torch.randn(16) / 4
    def data(n):
        z = torch.randn(n, 8)
        return z * scale + offset, torch.tanh(1.5 * z @ directions) @ weights + 0.05 * torch.randn(n)
    (x, y), (x_new, y_new) = data(1024), data(4096)
    model = Model()
    train(model, x, y, steps=300, seed=0)
    error = ((evaluate(model, x_new).squeeze(-1) - y_new) ** 2).mean() / y_new.var()
    print("mean squared error on new data, relative to the targets' variance:", error.item())
