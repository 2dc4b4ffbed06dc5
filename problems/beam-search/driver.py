"""In the sandbox, deciding nothing: the scripted model as `step`, one search, its hypotheses and the step calls
(the trusted side reports exhaustive search's hypotheses with `reports` too).

The step calls are recorded by the kit (kit.calls_observed, made as this file loads, before the submission is
imported), where nothing `step` refers to reaches them: a record in step's closure would be the submission's
to empty."""
import kit
import torch

CALLED, TAKEN = kit.calls_observed()


def model(table, powers, bos, max_len, called=CALLED):
    def step(tokens):  # a fresh copy of the row of `table` that a hash of the whole prefix picks
        if tokens.dtype != torch.int64 or tokens.dim() != 2 or not 1 <= tokens.shape[1] <= max_len \
                or tokens.numel() == 0 or (tokens[:, 0] != bos).any():
            raise ValueError("step takes int64 (beams, t), 1 <= t <= max_len, each row bos and the tokens so far")
        called(tokens.shape[0])
        return table[(tokens * powers[:tokens.shape[1]]).sum(1) % table.shape[0]]
    return step


def search(solution, params, inputs):
    step = model(inputs["table"], inputs["powers"], params["bos"], params["max_len"])
    found = solution.beam_search(step, params["bos"], params["eos"], params["beam_width"], params["max_len"],
                                 **({"length_penalty": params["alpha"]} if "alpha" in params else {}))
    found = [([int(token) for token in tokens], float(score)) for tokens, score in found]
    if any(len(tokens) > params["max_len"] or min(tokens, default=0) < 0 for tokens, _ in found):
        raise ValueError("a hypothesis has more than max_len tokens, or a negative token id")
    return found


def run(solution, params, inputs, ctx, taken=TAKEN, count=len):
    before = count(taken())
    try:
        found = search(solution, params, inputs)
    except (TypeError, ValueError) as error:
        raise ctx.WrongAnswer(f"{error} (beam_search returns a list of (tokens: list[int], score: float))") from None
    return reports(params, found, taken()[before:])


def reports(params, found, batches):
    """The hypotheses, best first (tokens padded with -1 to max_len), and the step calls: how many, the most rows."""
    pad = [tokens + [-1] * (params["max_len"] - len(tokens)) for tokens, _ in found]
    return {"tokens": torch.tensor(pad, dtype=torch.int64).view(-1, params["max_len"]),
            "scores": torch.tensor([score for _, score in found], dtype=torch.float64),
            "calls": torch.tensor([len(batches), max(batches, default=0)], dtype=torch.int64)}
