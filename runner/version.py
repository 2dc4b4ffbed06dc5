"""The judge's version: a hash of the code that decides verdicts, so it changes whenever that code does.

A version number written by hand stays the same while comparisons, limits and timing change under it; a hash
of the files cannot. Each judgement records it beside the problem's version (a hash of the package's files,
runner/problems.py), so the submissions a change to either may have judged differently can be found and
judged again.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

RUNNER_DIR = Path(__file__).resolve().parent

# Modules under runner/ that cannot change a verdict, by their path in it. No module that decides verdicts may
# import one of them (tests/runner/test_version.py checks), so an edit to them changes no judgement and is no
# reason to judge anything again:
# - __main__.py and cli.py: the command line, which prints the verdict the judge returns;
# - check.py: `runner check`, which judges a package's solutions and compares what comes back with what
#   each one declares;
# - promises.py: the map from a statement's sentences to its tests, read by the test suite only;
# - stated_numbers.py: the numbers a statement's Limits section states, held to problem.toml by the test suite only;
# - version.py: this hash itself; a change to what it covers changes the hash anyway.
# A data file the judge reads (other than .py) would have to be added to what is hashed.
NEUTRAL = frozenset({"__main__.py", "cli.py", "check.py", "promises.py", "stated_numbers.py", "version.py"})


def judged_files(root: Path) -> list[Path]:
    """The .py files under root (a copy of runner/) that decide verdicts, by path, caches left out."""
    files = [path for path in root.rglob("*.py") if "__pycache__" not in path.relative_to(root).parts]
    return sorted((path for path in files if path.relative_to(root).as_posix() not in NEUTRAL),
                  key=lambda path: path.relative_to(root).as_posix())


def judge_version(root: Path) -> str:
    """A hash of the name and content of every file under root that decides verdicts (16 hex digits)."""
    digest = hashlib.sha256()
    for path in judged_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@cache
def current() -> str:
    """This process's judge version: hashed once, from the files as they were when it was first asked for."""
    return judge_version(RUNNER_DIR)
