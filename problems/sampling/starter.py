import torch


def sample(logits: torch.Tensor, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, *,
           generator: torch.Generator) -> torch.Tensor:
    """One token id per row of logits (batch, vocab), as int64 (batch,).

    Divide the logits by temperature (0: greedy argmax, first of tied maxima); keep the tokens at least as
    likely as the top_k-th (0: all); then, on that renormalised distribution, keep the tokens whose strictly
    more probable tokens hold less than top_p of the mass; draw from what is kept, using only `generator`.
    torch.multinomial is not allowed here.
    """
    raise NotImplementedError
