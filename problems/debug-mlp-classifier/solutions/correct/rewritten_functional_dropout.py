# expect: accepted
# style: a rewrite: dropout as F.dropout(training=self.training), a warm-up and cosine schedule, gradients clipped
import math

import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, d_in=16, d_hidden=64, n_classes=4, dropout=0.1):
        super().__init__()
        self.p = dropout
        self.net = nn.ModuleDict({"0": nn.Linear(d_in, d_hidden), "3": nn.Linear(d_hidden, d_hidden)})
        self.head = nn.Linear(d_hidden, n_classes)

    def forward(self, x):
        for layer in self.net.values():
            x = F.dropout(F.relu(layer(x)), self.p, training=self.training)
        return self.head(x)


def train(model, x, y, *, steps, seed):
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.0)
    warmup = max(1, steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * s / steps)))
    model.train()
    for _ in range(steps):
        batch = torch.randperm(len(x), generator=generator)[:128]
        loss = F.cross_entropy(model(x[batch]), y[batch])
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()


def evaluate(model, x):
    model.eval()
    with torch.no_grad():
        return model(x)
