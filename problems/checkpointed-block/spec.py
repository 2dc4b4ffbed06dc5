"""Trusted: what the kit's wrapper checks (the wrapper kind) add in the words of recomputation.

The nearest classic mistake to a correct replay (one outside the forward's autocast) is off by 3e-3 of each
tensor's largest magnitude, far beyond the kit's 1e-5.
"""

from runner import kit


def once(mode):
    if mode == "eval":
        return ": recomputing pays for itself only in training"
    return ": without a graph there is nothing to save and nothing to recompute"


def recomputation(params):
    needs = []
    if params.get("dropout", 0) > 0 and params.get("mode", "train") == "train":
        needs.append("the same dropout masks, replayed from the random-number state the forward started from")
    if "autocast" in params:
        needs.append(f"the {params['autocast']} precision autocast gave the forward")
    return "; a recomputation must rebuild exactly its activations" + (f": {'; '.join(needs)}" if needs else "")


LESSONS = kit.Lessons(
    wrapper="the checkpoint", once=once, gradients=recomputation,
    rng=(": a recomputation that rewinds the RNG to replay the forward's dropout masks must restore it afterwards "
         "(torch.random.fork_rng), or the next step's masks repeat earlier ones"))
