"""The rules a distributed problem declares in problem.toml's `[ranks]`, applied to validated reports
(ranks_reports.py), each returning None when kept, else why not in the problem's terms.

On a hidden test no message shows a figure or a name the report chose (any of them could carry a hidden input
out): only limits computed here, the test's own params, and the operator names this torch registers.
"""

from __future__ import annotations

from typing import Any

import torch

from runner import compare

from .api import ANY_NAME, Table
from .mistakes import why_after_colon
from .ranks_reports import FAMILIES, Collective, RankReport, family, known_collectives

# problem.toml's `[ranks]`: the rules applied here, what ranks.py reads (`setup`, `trainable`, `relative_tolerance`,
# `replicated`), and `[ranks.says]`, the problem's own words its spec.py reads (kit.declared).
PHASE_RULE: Table = dict.fromkeys(("says", "why", "only", "sums", "elements", "bytes", "at_most", "fewer", "more",
                                   "others", *FAMILIES))
RANKS_TABLE: Table = {
    **dict.fromkeys(("setup", "trainable", "relative_tolerance", "replicated", "only", "says")),
    "refusal": dict.fromkeys(("divides", "raises", "says")),
    "holdings": dict.fromkeys(("split", "whole", "share", "lesson", "holder", "after")),
    "phases": {ANY_NAME: PHASE_RULE},
    "timeout": dict.fromkeys(("says", "all_sending")),
    "sent": dict.fromkeys(("every_over", "one_over", "under")),
}
WORDS = {"all_reduce": ("all-reduce", "summed", "sum"), "recv": ("receive", "received", "receive"),
         "batch_p2p": ("batch of sends and receives", "moved", "move")}
# What each source of the bytes a rank sent is called in the sent rule's words ({verb}).
# What a rank's resident growth may exceed the holdings limit by: the allocator's and the interpreter's own pages.
# Correct solutions of tp-mlp and zero1-adamw measured at most 439 KiB over their tensors (tp-mlp's parallelize_module
# on its first test, DTensor's own objects, on a busy machine); 4 MiB leaves room for other machines and styles.
RESIDENT_SLACK_BYTES = 4 << 20
COUNTED = {"calls": " sent", "process": "'s process wrote, counting every thread,"}


def groups(params: dict) -> list[list[int]]:
    """The groups of global ranks that each run the problem together: params["groups"], or the whole world."""
    return params.get("groups", [list(range(params["world_size"]))])


def place(params: dict, group: list[int], rank: int, what: str = "") -> str:
    """Where a message is about: the rank, within its group when there are several, and what it was doing."""
    if "groups" in params:
        where = f"rank {rank} (rank {group.index(rank)} of the group of ranks {', '.join(map(str, group))})"
    else:
        where = f"rank {rank} of {len(group)}"
    return f"{where}, {what}" if what else where


def collectives_message(says: str, rule: dict[str, Any], seen: list[Collective], facts: dict[str, Any],
                        only: str = "") -> str | None:
    """Why the collectives seen in a phase break rule (a [ranks.phases] table), or None. says is what the
    message calls the phase ("the forward pass"); facts fill in the counts a rule names and its words.

    Every family the rule does not name is refused, unless `others = "any"` allows them all, any number of calls
    (set-up); a family's calls must number what the rule gives (a count, the name of one in facts, or "any"); with
    `elements` or `bytes` (a count's name) the calls of its named families must move exactly that many in all, or
    at most that many with `at_most`. A refused operator is named with its family in words."""
    moving = [collective for collective in seen if collective.family]
    allowed = [name for name in FAMILIES if name in rule]
    others = [] if rule.get("others") == "any" else \
        sorted({collective.operator for collective in moving if collective.family not in allowed})
    if others:
        named = [f"{operator}{_family_words(operator)}" for operator in others if operator in known_collectives()]
        unknown = ["collectives this torch does not register"] if len(named) < len(others) else []
        listed = " and ".join(_words(name)[0] for name in allowed)
        allows = (f"{listed} {'is the only collective' if len(allowed) == 1 else 'are the only collectives'} it may "
                  "issue") if listed else "it may issue none"
        return f"{says} issued {', '.join(named + unknown)}; {allows}: {only}"
    moving = [collective for collective in moving if collective.family in allowed]
    reveal = compare.reveals_values()
    for kind in allowed:
        wanted, noun = rule[kind], _words(kind)[0]
        if wanted == "any":
            continue
        wanted = facts[wanted] if isinstance(wanted, str) else wanted
        count = sum(collective.calls for collective in moving if collective.family == kind)
        if count != wanted:
            issued = f"{count} {noun}{'' if count == 1 else 's'}" if reveal else \
                f"{noun}s" if not wanted else f"another number of {noun}s"
            expected = "none is needed" if not wanted else f"exactly {'one' if wanted == 1 else wanted} is expected:"
            return f"{says} issued {issued}; {expected} {rule['why']}"
    return _size_message(says, rule, moving, allowed, facts)


def _size_message(says, rule, moving, allowed, facts) -> str | None:
    unit = next((unit for unit in ("elements", "bytes") if unit in rule), None)
    if unit is None:
        return None
    limit, total = facts[rule[unit]], sum(getattr(collective, unit) for collective in moving)
    if total == limit or (rule.get("at_most") and total < limit):
        return None
    reveal, key = compare.reveals_values(), "fewer" if total < limit else "more"
    if key in rule:
        return rule[key].format(**{**facts, "moved": total if reveal else "another number of", "limit": limit})
    noun, moved, move = _words(allowed[0]) if len(allowed) == 1 else ("collective", "moved", "move")
    amount = f"{total} {unit[:-1]}{'' if total == 1 else 's'}" if reveal else f"another number of {unit}"
    return (f"{says}'s {noun} {moved} {amount}; it must {move} {rule['sums']}, {limit} {unit}: "
            f"{'an' if noun[0] in 'aeiou' else 'a'} {noun} of anything else leaves them to be moved some other way")


def _words(kind: str) -> tuple[str, str, str]:
    """(the family's noun, what its calls did to elements, what they must do), for messages."""
    return WORDS.get(kind, (kind.replace("_", "-"), "moved", "move"))


def _family_words(operator: str) -> str:
    """The family of a registered collective operator in words, ' (an all-gather)'; '' for an operator of none."""
    kind = family(operator)
    if kind not in FAMILIES:
        return ""
    noun = _words(kind)[0]
    return f" ({'an' if noun[0] in 'aeiou' else 'a'} {noun})"


def given_bytes(rule: dict[str, Any], inputs: dict[str, torch.Tensor]) -> dict[str, int]:
    """The bytes of each tensor [ranks.holdings] says set-up is given (`split` and `whole`)."""
    return {name: inputs[name].numel() * inputs[name].element_size()
            for name in (*rule.get("split", []), *rule.get("whole", []))}


def share_limit(rule: dict[str, Any], inputs: dict[str, torch.Tensor], size: int) -> int:
    """The bytes a rank of a group of size may hold by [ranks.holdings]: a 1/size share of `split`, all of `whole`."""
    full = given_bytes(rule, inputs)
    return sum(full[name] for name in rule.get("split", [])) // size + sum(full[name] for name in rule.get("whole", []))


def holdings_message(report: RankReport, rule: dict[str, Any], facts: dict[str, Any], limit: int,
                     full: dict[str, int], after: str) -> str | None:
    """Why what a rank holds after set-up (`after`, in words) breaks the bytes rule of rule ([ranks.holdings]:
    limit bytes, its `share` in words, then its `lesson`) or keeps the caller's tensors (full: the bytes of each
    given one), or None."""
    holder = rule.get("holder", "the module")
    out_of_sight = [name for name in report.alive if name not in report.held_given]
    total = report.held_bytes + sum(full[name] for name in out_of_sight)
    holders = ""
    if compare.reveals_values() and (report.largest or out_of_sight):
        listed = [f"{where}: {size} bytes" + (f", the storage of the {name} passed to {after}" if name else "")
                  for where, size, name in report.largest]
        listed += [f"{full[name]} bytes kept alive out of sight: the storage of the {name} passed to {after}"
                   for name in out_of_sight]
        holders = f" ({'; '.join(listed)})"
    lesson = f". {rule['lesson']}" if rule.get("lesson") else ""
    if total > limit:
        held = f"{total} bytes of tensor storage" if compare.reveals_values() else "more tensor storage than allowed"
        return f"{holder} holds {held}; the limit is {limit} bytes, {rule['share'].format(**facts)}{holders}{lesson}"
    if report.held_resident > limit + RESIDENT_SLACK_BYTES:
        grew = f"grew by {report.held_resident} bytes" if compare.reveals_values() else "grew by more than allowed"
        return (f"over {after}, this rank's resident memory {grew}, by the kernel's count, beyond the tensors the "
                f"driver made: what {holder} keeps counts there in any form (NumPy arrays, Python objects, globals); "
                f"the limit is {limit} bytes, {rule['share'].format(**facts)}, plus {RESIDENT_SLACK_BYTES} bytes for "
                f"the allocator's own{lesson}")
    if report.alive:
        return (f"once the caller dropped what it passed to {after}, {holder} still keeps the storage of "
                f"{', '.join(report.alive)}{holders}: it aliases the caller's tensors, so changing them would "
                f"change {holder}; copy what it needs")
    return None


def parameters_message(report: RankReport) -> str | None:
    """Why the module an optimiser is built from after set-up could not be trained, or None."""
    if report.parameters:
        return None
    return ("the module has no parameters; its trainable values must be nn.Parameters, so that an optimiser built "
            "from module.parameters() can train them")


def refusal_expected(rule: dict[str, Any] | None, params: dict) -> bool:
    """Whether the test's set-up must raise by [ranks.refusal]: where the group's size does not divide the param
    it names (`divides`)."""
    return rule is not None and params[rule["divides"]] % len(groups(params)[0]) != 0


def refusal_message(reports: dict[int, RankReport], rule: dict[str, Any], params: dict) -> str | None:
    """The first rank whose set-up did not raise rule's `raises`, in rule's `says` ({size}, {remainder} and the
    test's params filled in), or None."""
    size = len(groups(params)[0])
    for group in groups(params):
        rank = next((rank for rank in group if reports[rank].refused != rule["raises"]), None)
        if rank is not None:
            words = rule["says"].format(**{**params, "size": size, "remainder": params[rule["divides"]] % size})
            return f"{place(params, group, rank, 'constructing')}: {why_after_colon(words)}"
    return None


def timeout_message(reports: dict[int, RankReport], rule: dict[str, Any]) -> str | None:
    """Where a rank timed out in a collective: [ranks.timeout]'s `all_sending` when every rank had issued more
    sends than receives (all waiting in a send), else its `says`; None when none timed out."""
    if not any(report.timed_out for report in reports.values()):
        return None
    if "all_sending" in rule and all(report.calls("send") > report.calls("recv") for report in reports.values()):
        return why_after_colon(rule["all_sending"])
    return why_after_colon(rule["says"])


def sent_message(sent: dict[int, int], bounds: tuple[int, int], rule: dict[str, Any], counted: str,
                 facts: dict[str, Any]) -> str | None:
    """Why the bytes each rank sent break bounds (fewest, most), in [ranks.sent]'s words: `every_over` when every
    rank sent more, `one_over` when some did, `under` when one sent fewer ({rank}, {verb}: how counted, {most},
    {fewest}); None when every rank kept them. The figures themselves are never shown."""
    fewest, most = bounds
    over, under = [rank for rank in sent if sent[rank] > most], [rank for rank in sent if sent[rank] < fewest]
    key = "every_over" if over and len(over) == len(sent) else "one_over" if over else "under" if under else None
    if key is None:
        return None
    return why_after_colon(rule[key].format(**{**facts, "rank": (over + under)[0], "verb": COUNTED[counted], "most": most,
                                    "fewest": fewest}))


__all__ = ["COUNTED", "PHASE_RULE", "RANKS_TABLE", "WORDS", "collectives_message", "given_bytes", "groups",
           "holdings_message", "parameters_message", "place", "refusal_expected", "refusal_message", "sent_message",
           "share_limit", "timeout_message"]
