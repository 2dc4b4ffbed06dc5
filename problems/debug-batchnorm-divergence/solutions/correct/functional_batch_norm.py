# expect: accepted
# style: a rewrite: the input normalisation as F.batch_norm on norm_in's own tensors, switched by self.training
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
        bn = self.norm_in
        # batch statistics (and a running-average update) while training, the running averages in evaluation
        x = F.batch_norm(x, bn.running_mean, bn.running_var, bn.weight, bn.bias, training=self.training,
                         momentum=0.1, eps=bn.eps)
        return self.head(F.relu(self.fc2(F.relu(self.fc1(x)))))


def train(model: Model, x: torch.Tensor, y: torch.Tensor, *, steps: int, seed: int) -> None:
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    model.train()
    step = 0
    while step < steps:
        for rows in torch.randperm(len(x), generator=generator, device=x.device).split(64):
            if step == steps:
                break
            if len(rows) < 2:  # batch statistics need two samples
                continue
            loss = F.cross_entropy(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1


@torch.no_grad()
def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    model.eval()
    return model(x)
