# expect: time_limit_exceeded
# The rule step by step and draft by draft in Python, with the right distribution: tens of thousands of tiny
# tensor operations per call where a batched step needs a dozen. No fails-on: on the sample tests' 8,000 steps a
# call runs for seconds, past the checked call's limit on a slow machine and within it on a fast one, where the
# timed test (about 75 times the reference) is the first it fails.
import torch


def speculative_step(draft_probs, target_probs, draft_tokens, *, generator):
    batch, k, _ = draft_probs.shape
    accepted, next_token = [], []
    for b in range(batch):
        a = 0
        while a < k:
            x = draft_tokens[b, a]
            u = torch.rand((), generator=generator, device=draft_probs.device, dtype=draft_probs.dtype)
            if not u < target_probs[b, a, x] / draft_probs[b, a, x]:
                break
            a += 1
        dist = target_probs[b, a] if a == k else (target_probs[b, a] - draft_probs[b, a]).clamp(min=0)
        accepted.append(a)
        next_token.append(torch.multinomial(dist, 1, generator=generator))
    return torch.tensor(accepted, device=draft_probs.device), torch.cat(next_token)
