# expect: accepted
# style: AdamW over batches of 128, and evaluation under torch.inference_mode() that restores the training flag
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
        x = self.norm_in(x)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.head(x)


def train(model: Model, x: torch.Tensor, y: torch.Tensor, *, steps: int, seed: int) -> None:
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    model.train()
    for _ in range(steps):
        rows = torch.randint(0, len(x), (128,), generator=generator, device=x.device)
        loss = F.cross_entropy(model(x[rows]), y[rows])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()


def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            return model(x).clone()
    finally:
        model.train(was_training)
