# expect: accepted
# style: Nesterov SGD at a higher peak made safe by a linear warm-up and gradient clipping, with norm_in applied
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
        return self.head(F.relu(self.fc2(F.relu(self.fc1(self.norm_in(x))))))


def train(model: Model, x: torch.Tensor, y: torch.Tensor, *, steps: int, seed: int) -> None:
    generator = torch.Generator(device=x.device).manual_seed(seed)
    peak, warmup = 0.03, 30
    optimizer = torch.optim.SGD(model.parameters(), lr=peak, momentum=0.9, nesterov=True)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / warmup))
    model.train()
    for _ in range(steps):
        rows = torch.randint(0, len(x), (64,), generator=generator, device=x.device)
        loss = F.cross_entropy(model(x[rows]), y[rows])
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()


def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    model.eval()
    with torch.no_grad():
        return model(x)
