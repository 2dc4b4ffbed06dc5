# expect: accepted
# style: a DataLoader over a TensorDataset, shuffled by a seeded generator, epoch after epoch until the steps run out
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Model(nn.Module):
    def __init__(self, d_in: int = 16, d_hidden: int = 64, n_classes: int = 4, dropout: float = 0.1) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(d_hidden, d_hidden), nn.ReLU(), nn.Dropout(dropout))
        self.head = nn.Linear(d_hidden, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.net(x))


def train(model, x, y, *, steps, seed):
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(seed))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    model.train()
    taken = 0
    while taken < steps:
        for inputs, labels in loader:
            loss = F.cross_entropy(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            taken += 1
            if taken == steps:
                return


@torch.no_grad()
def evaluate(model, x):
    was_training = model.training
    model.eval()
    logits = model(x)
    model.train(was_training)
    return logits
