# expect: accepted
# style: the frozen backbone's features computed once, in evaluation mode without a graph, and the head trained on them with SGD
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
    model.backbone.eval()
    with torch.no_grad():
        features = model.backbone(x)
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.5, momentum=0.9)
    for _ in range(steps):
        batch = torch.randint(0, len(x), (128,), generator=generator, device=x.device)
        loss = F.cross_entropy(model.head(features[batch]), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def evaluate(model, x):
    model.eval()
    with torch.inference_mode():
        return model(x)
