# expect: accepted
# style: SGD with momentum over batches of 256 drawn without replacement, and evaluation under torch.inference_mode()
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


def train(model, x, y, *, steps, seed):
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model.train()
    for _ in range(steps):
        batch = torch.randperm(len(x), generator=generator, device=x.device)[:256]
        optimizer.zero_grad(set_to_none=True)
        F.cross_entropy(model(x[batch]), y[batch]).backward()
        optimizer.step()


def evaluate(model, x):
    model.eval()
    with torch.inference_mode():
        return model(x)
