# expect: accepted
# style: a rewrite whose Model keeps its backbone frozen by construction: train() never takes the backbone out of evaluation mode
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, d_in=16, d_hidden=32, n_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU(),
                                      nn.Linear(d_hidden, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU())
        self.backbone.requires_grad_(False)
        self.head = nn.Linear(d_hidden, n_classes)

    def train(self, mode=True):
        super().train(mode)
        self.backbone.eval()
        return self

    def forward(self, x):
        return self.head(self.backbone(x))


def train(model, x, y, *, steps, seed):
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-2, weight_decay=0.0)
    model.train()
    for _ in range(steps):
        batch = torch.randint(0, len(x), (64,), generator=generator, device=x.device)
        loss = F.cross_entropy(model(x[batch]), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def evaluate(model, x):
    model.eval()
    with torch.no_grad():
        return model(x)
