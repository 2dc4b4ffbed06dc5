# expect: accepted
# style: only real targets gathered; a higher SGD rate made safe by warm-up, cosine decay and clipping
import math

import torch
import torch.nn.functional as F
from torch import nn

PAD = 0


class Model(nn.Module):
    def __init__(self, vocab: int = 16, context: int = 4, d_embed: int = 16, d_hidden: int = 64) -> None:
        super().__init__()
        self.context = context
        self.embed = nn.Embedding(vocab, d_embed)
        self.hidden = nn.Linear(context * d_embed, d_hidden)
        self.out = nn.Linear(d_hidden, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        windows = F.pad(tokens, (self.context - 1, 0), value=PAD).unfold(-1, self.context, 1)
        return self.out(torch.tanh(self.hidden(self.embed(windows).flatten(-2))))


def train(model: Model, tokens: torch.Tensor, *, steps: int, seed: int) -> None:
    generator = torch.Generator(device=tokens.device).manual_seed(seed)
    peak, warmup = 1.0, max(1, steps // 10)
    optimizer = torch.optim.SGD(model.parameters(), lr=peak)
    for step in range(steps):
        scale = (step + 1) / warmup if step < warmup else \
            0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))
        for group in optimizer.param_groups:
            group["lr"] = peak * scale
        batch = tokens[torch.randint(0, len(tokens), (32,), generator=generator, device=tokens.device)]
        logits, targets = model(batch)[:, :-1], batch[:, 1:]
        real = targets != PAD
        loss = F.cross_entropy(logits[real], targets[real])
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()


def evaluate(model: Model, tokens: torch.Tensor) -> torch.Tensor:
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits = model(tokens)
    model.train(was_training)
    return logits
