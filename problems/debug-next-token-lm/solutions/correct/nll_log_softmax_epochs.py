# expect: accepted
# style: epochs over a seeded permutation, SGD with momentum, nll_loss on log_softmax with ignore_index
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
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    step = 0
    while step < steps:
        order = torch.randperm(len(tokens), generator=generator, device=tokens.device)
        for start in range(0, len(tokens), 32):
            if step == steps:
                break
            rows = order[start:start + 32]
            log_probs = F.log_softmax(model(inputs[rows]), dim=-1)
            loss = F.nll_loss(log_probs.reshape(-1, log_probs.shape[-1]), targets[rows].reshape(-1),
                              ignore_index=PAD)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1


@torch.no_grad()
def evaluate(model: Model, tokens: torch.Tensor) -> torch.Tensor:
    model.eval()
    return model(tokens)
