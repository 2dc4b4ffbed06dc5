"""Runs on every rank inside the sandbox, deciding nothing: builds this rank's TensorParallelMLP from the full
layers and takes the judged steps (kit_ranks: forward and backward on each input, one SGD step, forward again),
reporting what it saw (the module's holdings after load_full, each phase's collectives) for the ranks kind."""
import kit_ranks

LEARNING_RATE = 0.1


def run(solution, params, inputs, ctx, ranks=kit_ranks.observer()):
    group, index, size = ranks.group(params, ctx)
    d_model, d_hidden, observed = params["d_model"], params["d_hidden"], ranks.report()
    build = lambda: solution.TensorParallelMLP(d_model, d_hidden, group=group)  # noqa: E731
    if d_hidden % size:
        ranks.refusal(observed, build, "ValueError")
        return {"observed": ranks.encoded(observed)}
    module = ranks.set_up(observed, build, inputs, {"fc1": (d_model, d_hidden), "fc2": (d_hidden, d_model)},
                          "load_full")
    outputs = ranks.steps(observed, module, inputs, f"g{index}.", len(params["leading"]),
                          params.get("x_requires_grad", True), LEARNING_RATE, ctx)
    return {**outputs, "observed": ranks.encoded(observed)}
