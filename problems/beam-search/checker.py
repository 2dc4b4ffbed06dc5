"""Trusted: the hypotheses against the reference's, or exhaustive search's where the beam holds every sequence."""
import tomllib
from pathlib import Path

import torch

from runner import kit


DRIVER = kit.load_sibling(__file__, "driver.py")
MISTAKES = tomllib.loads((Path(__file__).parent / "problem.toml").read_text()).get("mistakes", [])


def inputs(params, generator):  # negative multiples of 1/16: sums are exact, so equal sums are equal
    rows, low, levels = params.get("rows", 257), params.get("low", 1), params.get("levels", 64)
    table = -torch.randint(low, low + levels, (rows, params["vocab"]), generator=generator).double() / 16
    if "eos_levels" in params:  # a likelier EOS
        table[:, params["eos"]] = -torch.randint(1, 1 + params["eos_levels"], (rows,), generator=generator) / 16
    return {"table": table, "powers": torch.randint(1, rows, (params["max_len"],), generator=generator)}


def exhaustive(params, inputs):  # the search with no beam: every sequence extended, walked in the same order
    step = DRIVER.model(inputs["table"], inputs["powers"], params["bos"], params["max_len"], [])
    live, finished, eos, end = [([params["bos"]], 0.0)], [], params["eos"], params["max_len"]
    for t in range(1, end + 1):
        log_probs = step(torch.tensor([tokens for tokens, _ in live])).tolist()
        grown = sorted(((tokens + [v], total + p) for (tokens, total), row in zip(live, log_probs)
                        for v, p in enumerate(row)), key=lambda c: -c[1])
        finished += [(s[1:], total / t ** params.get("alpha", 1.0)) for s, total in grown if s[-1] == eos or t == end]
        live = [(s, total) for s, total in grown if s[-1] != eos]
    return sorted(finished, key=lambda hypothesis: -hypothesis[1])


def differs(found, truth):  # where found (best first) departs from truth, in words
    show = kit.reveals_values()
    if len(found) != len(truth):
        return (f"returned {len(found) if show else 'a different number of'} hypotheses where {len(truth)} were "
                "expected: return the beam_width best finished hypotheses (all of them if fewer finished)")
    for i, ((tokens, score), (right, best)) in enumerate(zip(found, truth)):
        if tokens != right:
            return f"hypothesis {i} (best first) is " + (f"{tokens} where {right} was expected" if show else "wrong")
        if not abs(score - best) <= 1e-9 * max(1.0, abs(best)):
            return (f"hypothesis {i} (best first) has the right tokens but the wrong score" +
                    (f" ({score!r}, expected {best!r})" if show else "") +
                    ": score = sum of log-probs / (number of generated tokens, EOS included) ** length_penalty")


def check(params, inputs, got, expected):
    decoded = [[(row[row >= 0].tolist(), float(s)) for row, s in zip(out["tokens"], out["scores"])]
               for out in (got, expected) if out.get("tokens", torch.empty(0)).dim() == 2 and "scores" in out]
    if len(decoded) < 2 or (calls := got.get("calls", torch.empty(0))).shape != (2,) or \
            len(got["tokens"]) != len(got["scores"]):
        return "the driver's report of the hypotheses is missing or malformed (was the driver changed?)"
    if calls[0] > params["max_len"] or calls[1] > params["beam_width"]:
        return ("step was called more than max_len times, or on more than beam_width rows: call it once per step, "
                "on every live beam at once (a (beams, t) batch), as a model runs one batched forward pass")
    message = differs(decoded[0], exhaustive(params, inputs) if params.get("exhaustive") else decoded[1])
    for mistake in MISTAKES if message else []:  # the first classic mistake that gives exactly these hypotheses
        try:
            if differs(decoded[0], DRIVER.search(kit.load_sibling(__file__, mistake["solution"]), params, inputs, [])) is None:
                return f"{message}. This is exactly what {mistake['says']}."
        except Exception:  # noqa: BLE001 - a mistake that cannot run on these inputs is not this one
            continue
    return message and message + "."
