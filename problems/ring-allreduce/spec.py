"""Trusted: each rank's sum against float64, its sends and receives (the driver's count, hostile) and its bytes
as the kernel counted them (check_sent) against a ring's; classic mistakes named in problem.toml's words."""
import itertools

import torch

from runner import kit
from runner.kit import ranks


SAYS = ranks.declared(__file__)
LARGE = 1 << 18


def inputs(params, generator):
    return {"x": torch.randn(params["world_size"], params["n"], generator=generator)}


def check(params, inputs, got, expected):
    p, x = params["world_size"], inputs["x"].double()
    reports, flags = ranks.read_reports(got, params, phases={"call"}, given=set()), [
        got.get(f"timed_out@{rank}") for rank in range(p)]
    if isinstance(reports, str) or any(kit.layout("", flag, expected["timed_out@0"]) for flag in flags):
        return reports if isinstance(reports, str) else "a rank's record of a timeout came back malformed"
    moved = [moves(reports[rank]) for rank in range(p)]
    if any(flag.item() for flag in flags):
        return SAYS["deadlock"] if all(m[0] > m[2] for m in moved) else SAYS["unmatched"].format(**SAYS)
    truth, tol = x.sum(0), p * 2.0 ** -22 * x.abs().sum(0).max().item()
    for rank in range(p):
        who, out = f"rank {rank} of {p}'s tensor", got.get(f"out@{rank}")
        message = kit.layout(who, out, truth.float()) or kit.compare_tensors(who, out.double(), truth, atol=tol, rtol=0)
        if message:
            return message + mistake(params, x, out, rank, tol)
    wrong = [rank for rank, m in enumerate(moved) if not m[0] == m[2] == 2 * (p - 1)]
    same = all(torch.equal(got[f"out@{rank}"], got["out@0"]) for rank in range(p))
    return volume(params, {rank: m[1] for rank, m in enumerate(moved)}, " sent") or (wrong and SAYS["steps"].format(
        rank=wrong[0], p=p, steps=2 * (p - 1), ring=SAYS["ring"])) or (None if same else SAYS["differ"])


def moves(report):
    """(sends, elements sent, receives) in a rank's report."""
    seen = [(ranks.family(op.rsplit(".", 1)[0]), calls, elements) for op, calls, elements, _ in report.phases["call"]]
    return [sum(c for kind, c, _ in seen if kind == "send"), sum(e for kind, _, e in seen if kind == "send"),
            sum(c for kind, c, _ in seen if kind == "recv")]


def check_sent(params, sent):
    """The bytes each rank's process wrote in the call (the kernel's count), where a chunk dwarfs the framing."""
    if params["n"] >= LARGE:
        return volume(params, {r: sent.get(r, 0) / 4 for r in range(params["world_size"])}, SAYS["kernel"])


def volume(params, sent, verb):
    p, n = params["world_size"], params["n"]
    share, most = 2 * (p - 1) * n / p, 2 * (p - 1) * n // p - (-n // p)
    over, under = [r for r in sent if sent[r] > most], [r for r in sent if n >= LARGE and sent[r] < 0.95 * share]
    words = dict(p=p, n=n, most=most, verb=verb, ring=SAYS["ring"], share=f"{share:.0f}", rank=(over + under + [0])[0])
    rule = "every_over" if len(over) == p else "one_over" if over else "under" if under else None
    return rule and SAYS[rule].format(bound=SAYS["bound"].format(**words), **words)


def mistake(params, x, out, rank, atol):
    """ " — <the classic mistake>" when rank's wrong tensor shows one, else ""."""
    if out is None or out.shape != x[0].shape:
        return ""
    p, n, truth, says, out = params["world_size"], params["n"], x.sum(0), SAYS["mistakes"], out.double()
    close = lambda got, want: got.numel() == 0 or (got - want).abs().max().item() <= atol  # noqa: E731
    tail = p * (n // p)
    if n % p and close(out[:tail], truth[:tail]):
        return " — " + says["floor"].format(tail=tail, last=n - 1, left=n % p)
    for name, value in (("unchanged", x[rank]), ("mean", truth / p)):
        if close(out, value):
            return " — " + says[name]
    chunks = list(zip(out.tensor_split(p), x.tensor_split(p, dim=1)))
    full, subsets = sum(close(mine, parts.sum(0)) for mine, parts in chunks), [
        some for size in range(1, p) for some in itertools.combinations(range(p), size)]
    for (chunk, (mine, parts)), some in itertools.product(enumerate(chunks), subsets):
        if mine.numel() and close(mine, parts[list(some)].sum(0)):
            lesson = says["scatter_only" if full == 1 and rank in some else "early_chunk"]
            return " — " + says["partial"].format(chunk=chunk, p=p, ranks=", ".join(map(str, some))) + lesson
    return ""
