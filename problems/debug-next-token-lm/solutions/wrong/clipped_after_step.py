# expect: wrong_answer
# mistake: lr 5 kept, with clip_grad_norm_ after optimizer.step(), where it clips a gradient already applied
# message: held out loss
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
        """Logits (n, T, vocab): position t's prediction of token t + 1 from the `context` tokens ending at t."""
        windows = F.pad(tokens, (self.context - 1, 0), value=PAD).unfold(-1, self.context, 1)
        return self.out(torch.tanh(self.hidden(self.embed(windows).flatten(-2))))


def train(model: Model, tokens: torch.Tensor, *, steps: int, seed: int) -> None:
    """Train model in place on padded sequences tokens (n, T), for `steps` steps."""
    generator = torch.Generator(device=tokens.device).manual_seed(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
    for step in range(steps):
        batch = tokens[torch.randint(0, len(tokens), (32,), generator=generator, device=tokens.device)]
        logits = model(batch)
        loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), batch[:, 1:].flatten(), ignore_index=PAD)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)


def evaluate(model: Model, tokens: torch.Tensor) -> torch.Tensor:
    """The trained model's next-token logits (n, T, vocab) for sequences tokens (n, T)."""
    model.eval()
    with torch.no_grad():
        return model(tokens)
