"""In the sandbox, deciding nothing: ring_all_reduce on this rank's row; its collectives and any timeout (kit_ranks)."""
import torch

import kit_ranks


def run(solution, params, inputs, ctx, ranks=kit_ranks.observer(), clone=torch.Tensor.clone):
    mine, observed = clone(inputs["x"][ctx.rank]), ranks.report()
    ranks.during(observed, "call", solution.ring_all_reduce, mine, timeouts=True)
    return {"out": mine, "observed": ranks.encoded(observed)}
