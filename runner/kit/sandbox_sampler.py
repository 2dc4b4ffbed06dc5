"""The sampler kind's sandbox half, shipped as the module `kit_sampler`: a submission's draws, made with a
generator the test seeds, reported by name; it decides nothing.

A driver binds it when it loads, before the submission is imported (`def run(solution, params, inputs, ctx,
_draw=kit_sampler.draw)`). The trusted side (runner/kit/sampler.py) judges what comes back.
"""

from __future__ import annotations

import torch

# Reported after the names of a second call's draws, made when the test's params set `twice`, and of a third's,
# made then with a generator seeded otherwise.
AGAIN, OTHER_SEED = " again", " other seed"


def draw(call, names, params, inputs, ctx):
    """What call(generator) returns, by names: a tensor under the first name, or a tuple or list of as many
    tensors as names; anything else is left out (the trusted side finds it missing).

    The generator is seeded from the test's `seed` input. When params sets `twice`, the call is made again with
    a generator seeded alike, its draws reported under each name + AGAIN, and torch's global generator seeded
    differently before each call: a submission that draws from the global generator does not repeat itself.
    Then once more with the generator seeded otherwise (name + OTHER_SEED): one that draws from a generator of
    its own repeats itself there."""
    reported, seed = {}, int(inputs["seed"][0])
    calls = [("", 1, seed), (AGAIN, 2, seed), (OTHER_SEED, 1, seed ^ 1)] if params.get("twice") else [("", 1, seed)]
    for suffix, global_seed, own_seed in calls:
        torch.manual_seed(global_seed)
        generator = torch.Generator(device=ctx.device).manual_seed(own_seed)
        result = call(generator)
        results = [result] if isinstance(result, torch.Tensor) else result
        if isinstance(results, (tuple, list)) and len(results) == len(names):
            reported.update({name + suffix: value for name, value in zip(names, results)
                             if isinstance(value, torch.Tensor)})
    return reported
