"""A small batch-norm network whose loss turns to NaN. Fix the script: keep Model's parameter names, and train's
and evaluate's signatures."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, d_in: int = 8, d_hidden: int = 64, n_classes: int = 4) -> None:
        super().__init__()
        self.norm_in = nn.BatchNorm1d(d_in)
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_hidden)
        self.head = nn.Linear(d_hidden, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.fc1(x))
        return self.head(F.relu(self.fc2(h)))


def train(model: Model, x: torch.Tensor, y: torch.Tensor, *, steps: int, seed: int) -> None:
    """Train model in place on raw inputs x (n, d_in) and labels y (n,), for `steps` steps."""
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
    model.train()
    for step in range(steps):
        batch = torch.randint(0, len(x), (64,), generator=generator, device=x.device)
        loss = F.cross_entropy(model(x[batch]), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step < 4 or step % 100 == 0:
            print(f"step {step}: loss {loss.item():.4g}")


def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    """The trained model's logits (n, n_classes) for raw inputs x."""
    with torch.no_grad():
        return model(x)


if __name__ == "__main__":
    # Data like the judge's: 8 raw features, each an offset in [-2000, 2000] plus a scale in [500, 2000] times a
    # standard normal; the class is the quadrant of the standardised features along two random directions.
    torch.manual_seed(0)
    offsets, scales = (torch.rand(8) * 2 - 1) * 2000, 500 + torch.rand(8) * 1500
    directions = torch.randn(8, 2)
    def data(n):
        z = torch.randn(n, 8)
        return offsets + scales * z, 2 * (z @ directions[:, 0] > 0).long() + (z @ directions[:, 1] > 0).long()
    (x, y), (x_new, y_new) = data(1024), data(4096)
    model = Model()
    train(model, x, y, steps=300, seed=0)
    print("accuracy on new data:", (evaluate(model, x_new).argmax(-1) == y_new).float().mean().item())
