# expect: wrong_answer
# mistake: norm_in is defined but forward never calls it: raw inputs in the thousands reach fc1
# message: NaN or infinity
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
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    model.train()
    for step in range(steps):
        batch = torch.randint(0, len(x), (64,), generator=generator, device=x.device)
        loss = F.cross_entropy(model(x[batch]), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    """The trained model's logits (n, n_classes) for raw inputs x."""
    model.eval()
    with torch.no_grad():
        return model(x)
