"""Trusted: the scripted model's table, the truth (exhaustive search's where the beam holds every sequence) and
what a wrong list of hypotheses shows; then the step calls."""
import torch

from runner import kit

DRIVER, REFERENCE = kit.load_sibling(__file__, "driver.py"), kit.load_sibling(__file__, "reference.py")


def inputs(params, generator):  # negative multiples of 1/16: sums are exact, so equal sums are equal
    rows, low, levels = params.get("rows", 257), params.get("low", 1), params.get("levels", 64)
    table = -torch.randint(low, low + levels, (rows, params["vocab"]), generator=generator).double() / 16
    if "eos_levels" in params:  # a likelier EOS
        table[:, params["eos"]] = -torch.randint(1, 1 + params["eos_levels"], (rows,), generator=generator) / 16
    return {"table": table, "powers": torch.randint(1, rows, (params["max_len"],), generator=generator)}


def exhaustive(params, inputs):  # the search with no beam: every sequence extended, walked in the same order
    step = DRIVER.model(inputs["table"], inputs["powers"], params["bos"], params["max_len"], lambda rows: None)
    live, finished, eos, end = [([params["bos"]], 0.0)], [], params["eos"], params["max_len"]
    for t in range(1, end + 1):
        log_probs = step(torch.tensor([tokens for tokens, _ in live])).tolist()
        grown = sorted(((tokens + [v], total + p) for (tokens, total), row in zip(live, log_probs)
                        for v, p in enumerate(row)), key=lambda c: -c[1])
        finished += [(s[1:], total / t ** params.get("alpha", 1.0)) for s, total in grown if s[-1] == eos or t == end]
        live = [(s, total) for s, total in grown if s[-1] != eos]
    return sorted(finished, key=lambda hypothesis: -hypothesis[1])


def truth(params, inputs):
    if params.get("exhaustive"):
        return DRIVER.reports(params, exhaustive(params, inputs), [])
    return kit.run_by_driver(__file__, REFERENCE, params, inputs)


def diagnose(name, params, inputs, got, truth):
    """The hypotheses as lists, where they differ; the score's formula, where only the scores do."""
    if name == "scores":
        return ("The tokens are right: score = sum of log-probs / (number of generated tokens, EOS included) "
                "** length_penalty.")
    show, right = kit.reveals_values(), truth["tokens"]
    if got is None or got.shape != right.shape:
        count = len(got) if show and got is not None and got.dim() else "a different number of"
        return kit.why_after_colon(f"It returned {count} hypotheses where {len(right)} were expected: return the "
                                   "beam_width best finished hypotheses (all of them if fewer finished).")
    differ = (got != right).any(1).nonzero().flatten().tolist()  # none where only the dtype is wrong
    if not differ:
        return ""
    i = differ[0]
    listed = [[int(token) for token in row if token >= 0] for row in (got[i], right[i])]
    return f"Hypothesis {i} (best first) is " + (f"{listed[0]} where {listed[1]} was expected." if show else "wrong.")


def check(params, inputs, got, truth):
    calls = got.get("calls")
    if calls is None or calls.dtype != torch.int64 or calls.shape != (2,):
        return "the driver's report of the step calls is missing or malformed (was the driver changed?)"
    if calls[0] > params["max_len"] or calls[1] > params["beam_width"]:
        return kit.why_after_colon("step was called more than max_len times, or on more than beam_width rows: call "
                                   "it once per step, on every live beam at once (a (beams, t) batch), as a model "
                                   "runs one batched forward pass")
    return None
