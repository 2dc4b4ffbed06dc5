# expect: accepted
# torch's own F.dropout for the dropout half. It takes no generator, so torch's global generator is seeded from
# a number drawn from `generator`, inside fork_rng so the caller's global stream is left as it was; F.dropout
# returns x itself at p = 0 and zeros at p = 1. DropPath, which torch lacks, is timm's: bernoulli_ on a
# (batch, 1, ..., 1) tensor, divided by the keep probability only when it is above 0.
import torch
import torch.nn.functional as F


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training:
        return x
    seed = int(torch.randint(0, 2 ** 62, (1,), generator=generator))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return F.dropout(x, p, training=True)


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if p == 0.0 or not training:
        return x
    keep_prob = 1 - p
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob, generator=generator)
    if keep_prob > 0.0:
        random_tensor.div_(keep_prob)
    return x * random_tensor
