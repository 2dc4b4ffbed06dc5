# expect: wrong_answer
# Makes every comparison torch offers say "equal", then returns zeros: the judge compares on its own side.
import torch
import torch.testing

torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True
torch.testing.assert_close = lambda *args, **kwargs: None
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return x * 0
