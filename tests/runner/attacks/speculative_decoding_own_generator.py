# expect: wrong_answer
# problem: speculative-decoding
# tests: all
# message: seeded otherwise
# The accept-and-correct step drawn from a generator of its own, seeded with a constant, not the one it is
# given: two calls agree and every law fits, but the steps are the same whatever the hidden seed. The kit calls
# once more with the generator seeded otherwise and rejects draws that stay the same.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, vocab = draft_probs.shape
    device = draft_probs.device
    generator = torch.Generator(device=device).manual_seed(1234)
    alive = torch.ones(batch, dtype=torch.bool, device=device)
    accepted = torch.zeros(batch, dtype=torch.int64, device=device)
    for i in range(k):
        x = draft_tokens[:, i : i + 1]
        ratio = (target_probs[:, i].gather(1, x) / draft_probs[:, i].gather(1, x)).squeeze(1)
        u = torch.rand(batch, generator=generator, device=device, dtype=torch.float64)
        alive = alive & (u < ratio)
        accepted += alive
    rows = torch.arange(batch, device=device)
    padded = torch.cat([draft_probs, torch.zeros_like(target_probs[:, :1])], dim=1)
    residual = (target_probs[rows, accepted] - padded[rows, accepted]).clamp(min=0).double()
    cdf = residual.cumsum(dim=-1)
    u = torch.rand(batch, 1, generator=generator, device=device, dtype=torch.float64) * cdf[:, -1:]
    token = torch.searchsorted(cdf, u, right=True).squeeze(1)
    last = vocab - 1 - (residual.flip(-1) > 0).int().argmax(dim=-1)   # never past the last drawable token
    return accepted, torch.minimum(token, last)
