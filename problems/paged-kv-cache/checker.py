"""Each op in order: gathers exactly, attends against float64, appends refused when they must be; the pools used."""
import torch

from runner import kit


REFUSAL = {2: "raised an exception other than RuntimeError, the one that refuses an append",
           True: "needs {need} new blocks and {free} are free: it must raise RuntimeError, changing nothing",
           False: "needs {need} new blocks and {free} are free, yet it raised RuntimeError: L tokens hold ceil(L / "
                  "block_size) blocks, a refused append changes nothing, and free(seq_id) returns every block"}
TAIL = " It read slots past the sequence's length: unused slots hold NaN here, a freed sequence's tokens once reused."


def inputs(params, generator):
    shape, dtype = (params["heads"], params["head_dim"]), getattr(torch, params["dtype"])
    pool = torch.full((params["num_blocks"], params["block_size"], *shape), float("nan"), dtype=dtype)
    return {"k_pool": pool, "v_pool": pool.clone(), **{
        f"{name}{i}": torch.randn(*t, *shape, generator=generator, dtype=torch.float64).to(dtype)
        for i, (op, _, *t) in enumerate(params["ops"]) for name in {"append": "kv", "attend": "q"}.get(op, "")}}


def check(params, inputs, got, expected):
    size, live = params["block_size"], {}
    tokens = lambda seq, more=0: more + sum(len(inputs[f"k{j}"]) for j in live.get(seq, []))  # noqa: E731
    for i, (op, seq, *_) in enumerate(params["ops"]):
        what, code = f"op {i} ({op} on sequence {seq}, of {tokens(seq)} tokens)", got.get(f"raised{i}")
        code = int(code) if code is not None and code.dtype == torch.int64 and code.dim() == 0 else 2
        if op != "append" and code:
            return f"{what} raised " + ("RuntimeError" if code == 1 else "an exception (its traceback is on stderr)")
        if op == "append":
            free = params["num_blocks"] - sum(-(-tokens(other) // size) for other in live)
            need = -(-tokens(seq, len(inputs[f"k{i}"])) // size) + tokens(seq) // -size
            if code == 2 or bool(code) != (need > free):
                return f"{what} " + REFUSAL[2 if code == 2 else need > free].format(need=need, free=free)
            live.setdefault(seq, []).extend([] if code else [i])
        elif op == "free":
            live.pop(seq)
        else:
            k, v = (torch.cat([inputs[f"{name}{j}"] for j in live[seq]]) for name in "kv")
            for name, truth in (("k", k), ("v", v)) if op == "gather" else ():
                message = kit.check_exact(f"g{name}{i}", got.get(f"g{name}{i}"), truth)
                if message:
                    return f"{what}: {message}." + origin(got[f"g{name}{i}"], truth, name, seq, live, inputs, size)
            q, k, v = (t.to(torch.float64) for t in (inputs.get(f"q{i}", k[0]), k, v))
            truth = torch.einsum("hl,lhd->hd", (torch.einsum("hd,lhd->hl", q, k) / q.shape[-1] ** 0.5).softmax(-1), v)
            message = op == "attend" and kit.check_close(f"out{i}", got.get(f"out{i}"), expected[f"out{i}"], truth)
            if message:
                return f"{what}: {message}." + TAIL * bool(got[f"out{i}"].isnan().any())
    written, count = got.get("written"), sum(map(tokens, live))
    if written is None or written.shape != (2,) or bool((written < count).any()):
        return f"the pools hold fewer written slots than the {count} live tokens: keep all of them in k_pool and v_pool"
    return None


def origin(got, truth, name, seq, live, inputs, size):
    p = int((got != truth).flatten(1).any(1).nonzero()[0]) if got.shape == truth.shape else None
    if p is None or got[p].isnan().any():
        return "" if p is None else (f" Position {p} was never written (the pools arrive full of NaN): token L + i of "
                                     "an append goes to slot (L + i) % block_size of block (L + i) // block_size.")
    for owner, rows in ((owner, torch.cat([inputs[f"{name}{j}"] for j in js])) for owner, js in live.items() if js):
        hit = (rows == got[p]).flatten(1).all(1).nonzero()
        if len(hit):
            q = int(hit[0])
            return f" Position {p} holds " + (f"a token of sequence {owner}: each sequence needs a block table of "
                "its own." if owner != seq else f"position {q}'s token: " + ("the blocks come out of order (gather "
                "walks the sequence's block table in order, whatever the block numbers)." if q % size == p % size
                else "a later append overwrote it (new tokens go after the L cached, at offset L % block_size)."))
    return ""
