"""In the sandbox, deciding nothing: ring_all_reduce on this rank's row, its collectives (kit_ranks), any timeout."""
import torch

import kit_ranks


def run(solution, params, inputs, ctx, ranks=kit_ranks.observer(), clone=torch.Tensor.clone, tensor=torch.tensor):
    mine, observed, timed_out = clone(inputs["x"][ctx.rank]), {**ranks.report(), "parameters": 0}, [0]

    def call():
        try:
            solution.ring_all_reduce(mine)
        except RuntimeError as error:  # gloo's words for a send or receive nobody matched in time
            if "Timed out" not in str(error) and "Connection closed" not in str(error):
                raise
            timed_out[0] = 1
    ranks.during(observed, "call", call)
    return {"out": mine, "observed": ranks.encoded(observed), "timed_out": tensor(timed_out)}
