"""A statement's promises and the tests that keep them.

Every sentence under a statement's headings "Interface", "Constraints" and "What is checked" promises
something about the judge. promises.toml, beside statement.md, maps each of those sentences to the tests that
check it (names in problem.toml), to the known-wrong solutions that fail there where one exists, and to
correct solutions where what is promised is a freedom (another style is accepted); a sentence that promises
nothing checkable (an introduction to an example) says why instead:

    [[promise]]
    text = "Raises `ValueError` when `t_q > t_k` or when `window < 1`."
    tests = ["too-many-queries", "window-zero"]
    wrong = ["solutions/wrong/returns_empty.py"]

    [[promise]]
    text = "Example, `causal_mask(2, 5, window=3)` (`1` = blocked):"
    why = "introduces the example below it"

`unkept(problem)` lists what is wrong with the map: a sentence no entry maps, an entry whose sentence the
statement no longer has, a test or solution that does not exist, an entry with neither tests nor a reason.

A tolerance is a promise too: that it accepts every correct formula, not only the reference's. promises.toml
names the correct solutions whose formulas differ from the reference's only in rounding, and how; `runner
check` judges each on every test, the extremes of the statement's ranges among them, so a tolerance too tight
for one of them fails there. A problem where no two correct formulas can round differently says why instead:

    [[rounding]]
    solution = "solutions/correct/exp_log_frequencies.py"
    differs = "the frequencies as exp(-2i/d · ln base), where the reference raises base to a power"

    no_rounding_variant = "every output is an integer count, compared exactly"   # at the top of the file

`rounding_unkept(problem)` lists what is missing there.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .problems import Problem

SECTIONS = ("Interface", "Constraints", "What is checked")
PROMISES_FILE = "promises.toml"
NO_ROUNDING_VARIANT = "no_rounding_variant"
# A sentence ends at . ! ? or : followed by a space and what starts a sentence (a capital, a backtick, a
# parenthesis, an asterisk); "e.g." and "i.e." do not end one.
_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?:])\s+(?=[A-Z`(*\"])")


@dataclass
class Promise:
    text: str
    tests: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    correct: list[str] = field(default_factory=list)
    why: str = ""


def statement_sections(markdown: str) -> dict[str, str]:
    """The text under each level-two heading, code blocks left out."""
    sections: dict[str, list[str]] = {}
    current = None
    in_code = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {name: "\n".join(lines) for name, lines in sections.items()}


def sentences(text: str) -> list[str]:
    """The sentences of a section: each bullet or paragraph split at its sentence ends, whitespace folded."""
    blocks, block = [], []
    for line in text.splitlines():
        stripped = line.strip()
        starts_item = bool(re.match(r"([-*+]|\d+\.)\s", stripped))
        if not stripped or starts_item:
            if block:
                blocks.append(" ".join(block))
            block = [re.sub(r"^([-*+]|\d+\.)\s+", "", stripped)] if stripped else []
        else:
            block.append(stripped)
    if block:
        blocks.append(" ".join(block))
    found = []
    for paragraph in blocks:
        found += [" ".join(part.split()) for part in _SENTENCE_END.split(paragraph) if part.strip()]
    return found


def promised_sentences(problem: Problem) -> list[str]:
    """Every sentence under the statement's promising headings, in order."""
    sections = statement_sections((problem.path / "statement.md").read_text())
    return [sentence for name in SECTIONS for sentence in sentences(sections.get(name, ""))]


@dataclass
class RoundingVariant:
    """A correct solution whose formula differs from the reference's only in rounding, and how."""

    solution: str
    differs: str


def _declared(problem: Problem) -> dict:
    path = problem.path / PROMISES_FILE
    return tomllib.loads(path.read_text()) if path.exists() else {}


def load_promises(problem: Problem) -> list[Promise]:
    entries = _declared(problem).get("promise", [])
    return [Promise(text=" ".join(str(entry.get("text", "")).split()), tests=list(entry.get("tests", [])),
                    wrong=list(entry.get("wrong", [])), correct=list(entry.get("correct", [])),
                    why=str(entry.get("why", ""))) for entry in entries]


def unkept(problem: Problem) -> list[str]:
    """What is wrong with the problem's promise map; empty when every promise is mapped to tests that exist."""
    statement = (problem.path / "statement.md").read_text()
    found = [f'the statement has no "## {name}" section' for name in SECTIONS
             if name not in statement_sections(statement)]
    promises = load_promises(problem)
    mapped = {promise.text for promise in promises}
    written = promised_sentences(problem)
    found += [f"unmapped promise: {sentence!r}" for sentence in written if sentence not in mapped]
    names = {test.name for test in problem.tests}
    for promise in promises:
        if promise.text not in written:
            found.append(f"{PROMISES_FILE} maps a sentence the statement no longer has: {promise.text!r}")
        if not (promise.tests or promise.correct or promise.why):
            found.append(f"{PROMISES_FILE}: no test, no solution and no reason for {promise.text!r}")
        found += [f"{PROMISES_FILE}: no test named {name!r} ({promise.text[:60]!r})"
                  for name in promise.tests if name not in names]
        found += [f"{PROMISES_FILE}: no solution {path!r} ({promise.text[:60]!r})"
                  for path in promise.wrong + promise.correct if not (problem.path / path).is_file()]
    return found


def load_rounding(problem: Problem) -> tuple[list[RoundingVariant], str]:
    """The problem's rounding variants, and its reason for having none (empty where it gives none)."""
    declared = _declared(problem)
    variants = [RoundingVariant(str(entry.get("solution", "")), " ".join(str(entry.get("differs", "")).split()))
                for entry in declared.get("rounding", [])]
    return variants, " ".join(str(declared.get(NO_ROUNDING_VARIANT, "")).split())


def rounding_unkept(problem: Problem) -> list[str]:
    """What the problem lacks to show that its tolerance holds for more than the reference's formula at the
    extremes of its statement's ranges; empty when nothing is."""
    variants, reason = load_rounding(problem)
    if variants and reason:
        return [f"{PROMISES_FILE} names rounding variants and also says there are none ({reason!r})"]
    if reason:
        return []
    if not variants:
        return [f"{PROMISES_FILE} names no [[rounding]] variant (a correct solution whose formula differs from the "
                f"reference's only in rounding) and gives no {NO_ROUNDING_VARIANT} reason"]
    found = []
    correct = problem.path / "solutions" / "correct"
    for variant in variants:
        if (problem.path / variant.solution).parent != correct or not (problem.path / variant.solution).is_file():
            found.append(f"{PROMISES_FILE}: [[rounding]] names {variant.solution!r}, which is no file of "
                         "solutions/correct/")
        if not variant.differs:
            found.append(f"{PROMISES_FILE}: [[rounding]] {variant.solution!r} does not say how its formula differs")
    if not any(test.extreme and not test.sample for test in problem.tests):
        found.append("no hidden test at an extreme of the statement's ranges (a name that starts with largest-, "
                     "longest-, widest-, large- or huge-, or holds overflow) to judge the rounding variants on")
    return found


__all__ = ["NO_ROUNDING_VARIANT", "PROMISES_FILE", "SECTIONS", "Promise", "RoundingVariant", "load_promises",
           "load_rounding", "promised_sentences", "rounding_unkept", "sentences", "statement_sections", "unkept"]
