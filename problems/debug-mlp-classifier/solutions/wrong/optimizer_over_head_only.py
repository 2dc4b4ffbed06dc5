# expect: wrong_answer
# mistake: the optimizer holds only the head's parameters, so the two hidden layers never move
# message: `net.0.weight`, `net.0.bias`, `net.3.weight` and `net.3.bias` ended exactly where
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, d_in: int = 16, d_hidden: int = 64, n_classes: int = 4, dropout: float = 0.1) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(d_hidden, d_hidden), nn.ReLU(), nn.Dropout(dropout))
        self.head = nn.Linear(d_hidden, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.net(x))


def train(model: Model, x: torch.Tensor, y: torch.Tensor, *, steps: int, seed: int) -> None:
    """Train model in place on inputs x (n, d_in) and labels y (n,), for `steps` steps."""
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.AdamW(model.head.parameters(), lr=3e-3)
    model.train()
    for step in range(steps):
        batch = torch.randint(0, len(x), (64,), generator=generator, device=x.device)
        loss = F.cross_entropy(model(x[batch]), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    """The trained model's logits (n, n_classes) for inputs x."""
    model.eval()
    with torch.no_grad():
        return model(x)

