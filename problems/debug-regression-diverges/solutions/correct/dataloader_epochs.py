# expect: accepted
# style: a rewrite: the model standardises with statistics it is given once, batches from a DataLoader, AdamW
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Model(nn.Module):
    def __init__(self, d_in=8, d_hidden=64):
        super().__init__()
        self.register_buffer("x_mean", torch.zeros(d_in))
        self.register_buffer("x_std", torch.ones(d_in))
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_hidden), nn.ReLU(),
                                 nn.Linear(d_hidden, 1))

    @torch.no_grad()
    def fit_statistics(self, x):
        self.x_mean.copy_(x.mean(0))
        self.x_std.copy_(x.std(0))

    def forward(self, x):
        return self.net((x - self.x_mean) / self.x_std)


def train(model, x, y, *, steps, seed):
    model.fit_statistics(x)
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True,
                        generator=torch.Generator().manual_seed(seed))
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.0)
    taken = 0
    while taken < steps:
        for inputs, targets in loader:
            loss = F.mse_loss(model(inputs).squeeze(1), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            taken += 1
            if taken == steps:
                return


def evaluate(model, x):
    model.eval()
    with torch.no_grad():
        return model(x)
