"""Trusted: the ops replayed by the statement's rules, for what a wrong output shows (the truth is the reference's,
run through the driver); then the pools used."""
import torch

from runner import kit

REFUSAL = {0: "needs {need} new blocks and {free} are free: it must raise RuntimeError, changing nothing",
           1: "needs {need} new blocks and {free} are free, yet it raised RuntimeError: L tokens hold ceil(L / "
              "block_size) blocks, a refused append changes nothing, and free(seq_id) returns every block",
           2: "raised an exception other than RuntimeError, the one that refuses an append"}
RAISED = {1: "raised RuntimeError", 2: "raised an exception (its traceback is on stderr)"}  # another op's
TAIL = "It read slots past the sequence's length: unused slots hold NaN here, a freed sequence's tokens once reused."


def inputs(params, generator):
    shape, dtype = (params["heads"], params["head_dim"]), getattr(torch, params["dtype"])
    pool = torch.full((params["num_blocks"], params["block_size"], *shape), float("nan"), dtype=dtype)
    return {"k_pool": pool, "v_pool": pool.clone(), **{
        f"{name}{i}": torch.randn(*t, *shape, generator=generator, dtype=torch.float64).to(dtype)
        for i, (op, _, *t) in enumerate(params["ops"]) for name in {"append": "kv", "attend": "q"}.get(op, "")}}


def replay(params, inputs):
    """Each op's (its sequence's tokens before it, blocks needed, blocks free, after it each live one's appends)."""
    size, live, states = params["block_size"], {}, []
    tokens = lambda seq: sum(len(inputs[f"k{j}"]) for j in live.get(seq, []))  # noqa: E731
    for i, (op, seq, *_) in enumerate(params["ops"]):
        before, free = tokens(seq), params["num_blocks"] - sum(-(-tokens(other) // size) for other in live)
        need = -(-(before + len(inputs[f"k{i}"])) // size) + before // -size if op == "append" else 0
        live.setdefault(seq, []).extend([i] if op == "append" and need <= free else [])
        live.pop(seq) if op == "free" else None
        states.append((before, need, free, {owner: list(appends) for owner, appends in live.items()}))
    return states


def op_of(name, params, inputs):  # (i, op, seq_id, *replay's state after op i) of an output of op i
    i = int("".join(filter(str.isdigit, name)))
    return i, *params["ops"][i][:2], *replay(params, inputs)[i]


def call_of(name, params, inputs):
    return "op {} ({} on sequence {}, of {} tokens)".format(*op_of(name, params, inputs))


def diagnose(name, params, inputs, got, truth):
    i, op, seq, _, need, free, live = op_of(name, params, inputs)
    code = int(got) if got is not None and got.dtype == torch.int64 and got.dim() == 0 and 0 <= got <= 2 else 2
    if name.startswith("raised"):
        return "It " + (REFUSAL if op == "append" else RAISED)[code].format(need=need, free=free) + "."
    if got is None or not name.startswith("g"):
        return TAIL * bool(got is not None and got.isnan().any())
    wrong = (got != truth[name]).flatten(1).any(1).nonzero() if got.shape == truth[name].shape else []
    p = int(wrong[0]) if len(wrong) else None
    if p is None or got[p].isnan().any():
        return "" if p is None else (f"Position {p} was never written (the pools arrive full of NaN): token L + i of "
                                     "an append goes to slot (L + i) % block_size of block (L + i) // block_size.")
    for owner, rows in ((owner, torch.cat([inputs[f"{name[1]}{j}"] for j in js])) for owner, js in live.items() if js):
        hit = (rows == got[p]).flatten(1).all(1).nonzero()
        if len(hit):
            q = int(hit[0])
            return f"Position {p} holds " + (f"a token of sequence {owner}: each sequence needs a block table of "
                "its own." if owner != seq else f"position {q}'s token: " + ("the blocks come out of order (gather "
                "walks the sequence's block table in order, whatever the block numbers)." if q % params["block_size"]
                == p % params["block_size"] else "a later append overwrote it (new tokens go after the L cached, at "
                "offset L % block_size)."))
    return ""


def check(params, inputs, got, truth):
    live, written = replay(params, inputs)[-1][3], got.get("written")
    count = sum(len(inputs[f"k{j}"]) for appends in live.values() for j in appends)
    if written is None or written.shape != (2,) or bool((written < count).any()):
        return kit.why_after_colon(
            f"the pools hold fewer written slots than the {count} live tokens: keep all of them in k_pool and v_pool")
