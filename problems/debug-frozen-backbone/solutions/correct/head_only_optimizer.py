# expect: accepted
# style: requires_grad left alone: the optimizer holds only the head, and the backbone runs under torch.no_grad() in eval mode
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, d_in: int = 16, d_hidden: int = 32, n_classes: int = 4) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU(),
                                      nn.Linear(d_hidden, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU())
        self.head = nn.Linear(d_hidden, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


def train(model, x, y, *, steps, seed):
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.Adam(model.head.parameters(), lr=3e-2)
    model.eval()
    for _ in range(steps):
        batch = torch.randperm(len(x), generator=generator, device=x.device)[:64]
        with torch.no_grad():
            features = model.backbone(x[batch])
        loss = F.cross_entropy(model.head(features), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@torch.no_grad()
def evaluate(model, x):
    return model.eval()(x)
