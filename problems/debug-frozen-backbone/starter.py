"""Fine-tuning a new head on a frozen, pretrained backbone, which changes anyway. Fix the script: keep Model's
parameter and buffer names, and train's and evaluate's signatures."""
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
    model.head.requires_grad_(False)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-2)
    model.train()
    for step in range(steps):
        batch = torch.randint(0, len(x), (64,), generator=generator, device=x.device)
        loss = F.cross_entropy(model(x[batch]), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(f"step {step}: loss {loss.item():.3f}")


def evaluate(model: Model, x: torch.Tensor) -> torch.Tensor:
    """The fine-tuned model's logits (n, n_classes) for inputs x."""
    model.eval()
    with torch.no_grad():
        return model(x)


if __name__ == "__main__":
    # A stand-in for the pretrained model and its data: which tensors does fine-tuning change?
    torch.manual_seed(0)
    model = Model()
    x = torch.randn(1024, 16)
    y = (model.backbone(x) @ torch.randn(32, 4)).argmax(-1).detach()
    before = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    train(model, x, y, steps=300, seed=0)
    after = model.state_dict()
    print("changed:  ", " ".join(name for name in before if not torch.equal(before[name], after[name])))
    print("unchanged:", " ".join(name for name in before if torch.equal(before[name], after[name])))
