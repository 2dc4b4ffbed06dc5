# expect: accepted
# style: windows stacked from slices, AdamW, and log-probabilities gathered at the targets, averaged over a mask
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
        length = tokens.shape[-1]
        padded = F.pad(tokens, (self.context - 1, 0), value=PAD)
        # window t holds tokens t - context + 1 .. t, oldest first
        windows = torch.stack([padded[..., i:i + length] for i in range(self.context)], dim=-1)
        return self.out(torch.tanh(self.hidden(self.embed(windows).flatten(-2))))


def train(model: Model, tokens: torch.Tensor, *, steps: int, seed: int) -> None:
    generator = torch.Generator(device=tokens.device).manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    model.train()
    for _ in range(steps):
        batch = tokens[torch.randint(0, len(tokens), (32,), generator=generator, device=tokens.device)]
        log_probs = model(batch)[:, :-1].log_softmax(-1)
        targets = batch[:, 1:]
        picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        real = (targets != PAD).to(picked.dtype)
        loss = -(picked * real).sum() / real.sum().clamp(min=1)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()


def evaluate(model: Model, tokens: torch.Tensor) -> torch.Tensor:
    model.eval()
    with torch.inference_mode():
        return model(tokens)
