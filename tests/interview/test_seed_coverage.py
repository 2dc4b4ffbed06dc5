"""Every line of both source documents is covered by the question bank, as the coverage files claim.

problems/questions/coverage/<seed>.yaml maps each non-blank line of problems/seeds/<seed>.txt (1-based, as
`cat -n` numbers them) to the questions that cover it:

    seed: 000_2e1d6a4192f4eaaa.txt
    lines:
      - lines: [3, 21]                     # or `line: 23` for one line
        quote: "import torch, torch.nn as nn, math"
        questions: [mhsa-from-scratch]
        points:                            # optional: each point of a line that lists several
          - point: FlashAttention
            questions: [flash-attention]

The test reads the seeds themselves, so a line that nobody mapped, or a quote that no longer matches the
document, fails here.
"""

from pathlib import Path

import pytest
import yaml

from tests.interview.repository import CONTENT, ROOT, front_matter_by_id

SEEDS = sorted((CONTENT / "seeds").glob("*.txt"))
SHARED_SEEDS = ROOT.parent / "shared" / "seeds"
QUOTE_MIN_LENGTH = 15


def seed_lines(seed: Path) -> dict[int, str]:
    """The non-blank lines of a seed document by 1-based number, without surrounding whitespace."""
    lines = seed.read_text(encoding="utf-8").splitlines()
    return {number: line.strip() for number, line in enumerate(lines, start=1) if line.strip()}


def coverage_entries(seed: Path) -> list[dict]:
    path = CONTENT / "questions" / "coverage" / f"{seed.stem}.yaml"
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing: every seed document needs its coverage file"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("lines"), list), (
        f"{path.name}: needs `seed` and `lines`"
    )
    assert data.get("seed") == seed.name, (
        f"{path.name}: `seed` is {data.get('seed')!r}, expected {seed.name!r}"
    )
    return data["lines"]


def entry_span(entry: dict) -> tuple[int, int]:
    """The first and last line number an entry covers."""
    if "line" in entry:
        return entry["line"], entry["line"]
    first, last = entry["lines"]
    return first, last


def entry_label(entry: dict) -> str:
    first, last = entry_span(entry)
    return f"line {first}" if first == last else f"lines {first}-{last}"


@pytest.fixture(params=SEEDS, ids=[seed.name for seed in SEEDS])
def seed(request) -> Path:
    return request.param


def test_both_source_documents_are_in_the_repository():
    assert [seed.name for seed in SEEDS] == ["000_2e1d6a4192f4eaaa.txt", "001_b1d36ed18d41dc40.txt"]


@pytest.mark.skipif(not SHARED_SEEDS.is_dir(), reason=f"{SHARED_SEEDS} is not on this machine")
def test_the_seed_copies_are_identical_to_the_shared_originals():
    originals = sorted(path.name for path in SHARED_SEEDS.iterdir() if path.is_file())
    copies = sorted(path.name for path in (CONTENT / "seeds").iterdir() if path.is_file())
    assert copies == originals
    for name in originals:
        assert (CONTENT / "seeds" / name).read_bytes() == (SHARED_SEEDS / name).read_bytes(), (
            f"seeds/{name} differs"
        )


def test_every_entry_is_well_formed(seed):
    problems = []
    for index, entry in enumerate(coverage_entries(seed), start=1):
        where = f"{seed.stem}.yaml entry {index}"
        if not isinstance(entry, dict) or ("line" in entry) == ("lines" in entry):
            problems.append(f"{where}: needs exactly one of `line` or `lines`")
            continue
        span = entry.get("lines", [entry.get("line")] * 2)
        if not (
            isinstance(span, list)
            and len(span) == 2
            and all(isinstance(n, int) for n in span)
            and span[0] <= span[1]
        ):
            problems.append(f"{where}: `lines` must be [first, last] line numbers")
        if not isinstance(entry.get("quote"), str) or not entry["quote"].strip():
            problems.append(f"{where}: `quote` is missing")
        if not isinstance(entry.get("questions"), list) or not entry["questions"]:
            problems.append(f"{where}: `questions` must list at least one question id")
        for point in entry.get("points") or []:
            if not isinstance(point, dict) or not point.get("point") or not point.get("questions"):
                problems.append(f"{where}: each of `points` needs `point` and `questions`")
    assert not problems, "\n".join(problems)


def test_every_non_blank_line_is_mapped(seed):
    covered = set()
    for entry in coverage_entries(seed):
        first, last = entry_span(entry)
        covered.update(range(first, last + 1))
    unmapped = {number: text for number, text in seed_lines(seed).items() if number not in covered}
    assert not unmapped, f"{seed.name}: lines not mapped to any question:\n" + "\n".join(
        f"  {number}: {text[:90]}" for number, text in sorted(unmapped.items())
    )


def test_every_quote_matches_the_start_of_its_line(seed):
    lines = seed_lines(seed)
    problems = []
    for entry in coverage_entries(seed):
        first, last = entry_span(entry)
        if first not in lines or last not in lines:
            problems.append(
                f"{entry_label(entry)}: begins or ends on a blank line or past the end of {seed.name}"
            )
            continue
        text, quote = lines[first], entry["quote"].strip()
        if not text.startswith(quote):
            problems.append(f"{entry_label(entry)}: quote {quote!r} is not the start of {text[:60]!r}")
        elif len(quote) < min(QUOTE_MIN_LENGTH, len(text)):
            problems.append(
                f"{entry_label(entry)}: quote {quote!r} is shorter than {QUOTE_MIN_LENGTH} characters"
            )
    assert not problems, f"{seed.name}:\n" + "\n".join(f"  {problem}" for problem in problems)


def test_every_question_id_in_the_coverage_is_a_question_file(seed):
    ids = set(front_matter_by_id())
    unknown = []
    for entry in coverage_entries(seed):
        named = list(entry["questions"]) + [
            q for point in entry.get("points") or [] for q in point["questions"]
        ]
        unknown += [f"{entry_label(entry)}: {slug}" for slug in named if slug not in ids]
    assert not unknown, f"{seed.stem}.yaml names questions that have no file:\n" + "\n".join(
        f"  {item}" for item in unknown
    )
