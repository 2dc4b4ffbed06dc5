# expect: wrong_answer
# mistake: the backbone is put in evaluation mode, which freezes batch norm's statistics but not a single weight: eval() is not requires_grad_(False)
# message: `backbone.0.weight`
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


def train(model: Model, x: torch.Tensor, y: torch.Tensor, *, steps: int, seed: int) -> None:
    """Fine-tune model's head on inputs x (n, d_in) and labels y (n,); the pretrained backbone stays as it is."""
    generator = torch.Generator(device=x.device).manual_seed(seed)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-2)
    model.train()
    model.backbone.eval()
    for step in range(steps):
        batch = torch.randint(0, len(x), (64,), generator=generator, device=x.device)
        loss = F.cross_entropy(model(x[batch]), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    """The fine-tuned model's logits (n, n_classes) for inputs x."""
    model.eval()
    with torch.no_grad():
        return model(x)
