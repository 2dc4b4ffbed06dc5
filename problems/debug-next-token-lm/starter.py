"""A tiny next-token language model that does not learn. Fix the script: keep Model's parameter names, and
train's and evaluate's signatures."""
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
        """Logits (n, T, vocab): position t's prediction of token t + 1 from the `context` tokens ending at t."""
        windows = F.pad(tokens, (self.context - 1, 0), value=PAD).unfold(-1, self.context, 1)
        return self.out(torch.tanh(self.hidden(self.embed(windows).flatten(-2))))


def train(model: Model, tokens: torch.Tensor, *, steps: int, seed: int) -> None:
    """Train model in place on padded sequences tokens (n, T), for `steps` steps."""
    generator = torch.Generator(device=tokens.device).manual_seed(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
    for step in range(steps):
        batch = tokens[torch.randint(0, len(tokens), (32,), generator=generator, device=tokens.device)]
        probs = model(batch).softmax(-1)
        loss = F.cross_entropy(probs.flatten(0, 1), batch.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(f"step {step}: loss {loss.item():.3f}")


def evaluate(model: Model, tokens: torch.Tensor) -> torch.Tensor:
    """The trained model's next-token logits (n, T, vocab) for sequences tokens (n, T)."""
    model.eval()
    with torch.no_grad():
        return model(tokens)


if __name__ == "__main__":
    # Data like the judge's: 15 tokens (1 to 15), each followed by one of three others with probabilities
    # 0.6, 0.3 and 0.1; sequences of 2 to 16 tokens, padded with PAD to 32 positions.
    torch.manual_seed(0)
    successors = torch.stack([torch.randperm(15)[:3] + 1 for _ in range(15)])
    chain = torch.zeros(16, 16)
    chain[torch.arange(1, 16)[:, None], successors] = torch.tensor([0.6, 0.3, 0.1])
    def data(n):
        tokens = torch.zeros(n, 32, dtype=torch.long)
        tokens[:, 0] = torch.randint(1, 16, (n,))
        for t in range(1, 32):
            tokens[:, t] = torch.multinomial(chain[tokens[:, t - 1]], 1)[:, 0]
        return tokens.masked_fill(torch.arange(32) >= torch.randint(2, 17, (n, 1)), PAD)
    tokens, new = data(512), data(1024)
    model = Model()
    train(model, tokens, steps=300, seed=0)
    logits = evaluate(model, new)
    loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), new[:, 1:].flatten(), ignore_index=PAD).item()
    print(f"next-token loss on new sequences: {loss:.3f} nats (the chain's entropy: 0.898; uniform: "
          f"{math.log(16):.3f})")
