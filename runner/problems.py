"""Problem packages: loading problems/<slug>/ and describing it as plain data.

See problems/README.md, "Coding problems", for the format a problem author writes.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .kit.api import Checker, Table, refuse_unknown_keys
from .kit.kinds import KINDS, Kind
from .kit.standard import REACH_KEYS

DEFAULT_PROBLEMS_DIR = Path(__file__).resolve().parent.parent / "problems"
# The files that decide a verdict, whatever the kind; their hash, with the kind's own files, is the version.
JUDGING_FILES = ("problem.toml", "reference.py")
SHOWN_FILES = ("statement.md", "starter.py", "explanation.md")
KIT_DIR = Path(__file__).resolve().parent / "kit"
# The kit's files decide every problem's verdicts: they are all part of each version.
KIT_FILES = tuple(sorted(path.name for path in KIT_DIR.glob("*.py") if path.name != "__init__.py"))
# The kit's sandbox side, shipped to every sandbox: sandbox.py as the module `kit`, sandbox_<name>.py as
# `kit_<name>` (a driver imports what it uses; the trusted side never trusts what they report).
KIT_SANDBOX_MODULES = {("kit" if name == "sandbox.py" else "kit_" + name.removeprefix("sandbox_").removesuffix(".py")): name
                       for name in KIT_FILES if name == "sandbox.py" or name.startswith("sandbox_")}
# Kit modules shipped only to problems of one kind: kit_kernel imports Triton (about 100 MiB resident), which every
# other sandbox would otherwise load with the kit.
KIND_ONLY_MODULES = {"kit_kernel": "kernel"}
# A [[mistakes]] entry without a solution file names a function of spec.py, its keywords and the params it fits.
SPEC_MISTAKE_KEYS = {"spec", "says", "with", "when"}
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
NEEDS = ("cpu", "cuda", "any")
DIFFICULTIES = ("easy", "medium", "hard")


class ProblemError(Exception):
    """A problem that does not exist or whose package is malformed."""


# Each package's checker, by its folder and version: a worker loads the problem for every submission, and what a
# checker keeps from one judgement to the next (a plain model's peak it measured, say) serves every later one,
# as within `runner check`. A changed file is a new version, so an edited package is imported afresh.
_CHECKERS: dict[tuple[str, str], Any] = {}


@dataclass(frozen=True)
class Limits:
    """A problem's limits; ratios are to the reference measured in the same run."""

    time_ratio: float = 5.0
    time_cap_ms: float = 2000.0
    wall_s: float = 120.0
    memory_ratio: float = 4.0
    memory_floor_bytes: int = 1 << 20
    memory_cap_bytes: int | None = None
    sandbox_memory_bytes: int = 4 << 30
    timed_rounds: int = 3
    timed_iterations: int = 5
    collective_timeout_s: float = 5.0
    # A distributed problem's traffic: each rank may write at most this many times the bytes the reference's
    # same rank wrote on the same test, plus the slack (runner/testcase.py, traffic_checked).
    sent_ratio: float = 1.25
    sent_slack_bytes: int = 65536

    def time_words(self) -> str:
        """The time limit in the words the statement, the results and every time verdict use."""
        return f"{self.time_ratio:g}× the reference's time and {self.time_cap_ms:g} ms a call"


# An extreme test, by its name: the largest sizes, or the largest magnitudes (where a dtype overflows); a
# distributed test's name may start with its world size (`w4-large`).
EXTREME_NAME = re.compile(r"^(w\d+-)?(largest|longest|widest|large|huge)\b|overflow")


@dataclass(frozen=True)
class TestSpec:
    """One test: a name, its parameters (plain JSON), whether it is a sample and whether it is timed."""

    name: str
    params: dict[str, Any]
    sample: bool = False
    timed: bool = False

    @property
    def extreme(self) -> bool:
        """Whether the test is at an extreme of the statement's ranges (its name says so: EXTREME_NAME)."""
        return bool(EXTREME_NAME.search(self.name))


# The keys of problem.toml that every problem has, whatever its kind (a test's params are the problem's own);
# the judge ignores `follow_ups`, which only the site reads (sync_content).
COMMON_TABLES: Table = {
    **dict.fromkeys(("title", "difficulty", "kind", "topics", "tags", "needs", "world_size", "entry_points",
                     "forbidden", "forbidden_stems", "allowed_operators", "modules", "follow_ups", "threads")),
    "limits": dict.fromkeys(limit.name for limit in fields(Limits)),
    "tests": dict.fromkeys(key.name for key in fields(TestSpec)),
}


@dataclass
class Problem:
    """A loaded problem package."""

    slug: str
    path: Path
    title: str
    difficulty: str
    tags: list[str]
    needs: str
    world_size: int
    entry_points: list[str]
    forbidden: list[str]
    modules: list[str]
    limits: Limits
    tests: list[TestSpec]
    version: str
    kind: str = "custom"
    topics: list[str] = field(default_factory=list)
    interface: dict[str, Any] = field(default_factory=dict)
    tolerance: dict[str, float] = field(default_factory=dict)
    mistakes: list[dict[str, str]] = field(default_factory=list)
    # Whether a submission may start threads of its own (runner/harness/confine.py). What the harness counts
    # inside the process is seen thread by thread, so only a problem that needs threads after the load has them:
    # the ranks kind's (gloo's, for the groups each test makes), unless problem.toml says otherwise.
    threads: bool = False
    declared: dict[str, Any] = field(default_factory=dict, repr=False)  # the whole of problem.toml
    _checker: Checker | None = field(default=None, repr=False)

    @property
    def kit_kind(self) -> Kind:
        return KINDS[self.kind]

    def source(self, name: str) -> bytes:
        return (self.path / name).read_bytes()

    def driver_source(self) -> bytes:
        """The driver the sandbox runs: the kind's (the kit's, or the package's driver.py)."""
        return self.kit_kind.driver_source(self)

    def sandbox_blobs(self, solution: bytes) -> dict[str, bytes]:
        """What the sandbox receives: the solution, the driver, the kit and the modules the problem shares."""
        blobs = {"solution": solution, "driver": self.driver_source()}
        for module, name in KIT_SANDBOX_MODULES.items():
            if KIND_ONLY_MODULES.get(module, self.kind) == self.kind:
                blobs[f"module:{module}"] = (KIT_DIR / name).read_bytes()
        for name in self.modules:
            blobs[f"module:{Path(name).stem}"] = self.source(name)
        return blobs

    @property
    def checker(self) -> Checker:
        """The trusted checker the kind builds from the package (once per version, never sent to the sandbox)."""
        if self._checker is None:
            key = (str(self.path.resolve()), self.version)
            if key not in _CHECKERS:
                _CHECKERS[key] = self.kit_kind.checker(self)
            self._checker = _CHECKERS[key]
        return self._checker

    def selected_tests(self, which: str) -> list[TestSpec]:
        """The sample tests, or all of them (samples first, as listed)."""
        if which not in ("sample", "all"):
            raise ValueError(f"tests must be 'sample' or 'all', not {which!r}")
        return [test for test in self.tests if test.sample or which == "all"]

    def solutions(self) -> list[tuple[Path, str, str | None]]:
        """(path, expected verdict, expected message substring) for reference and every solution file."""
        found = [(self.path / "reference.py", "accepted", None)]
        for path in sorted((self.path / "solutions").glob("*/*.py")):
            expect, message = read_expectation(path.read_bytes())
            if expect is None:
                raise ProblemError(f"{path}: the first lines must include '# expect: <verdict>'")
            found.append((path, expect, message))
        return found


def read_expectation(source: bytes) -> tuple[str | None, str | None]:
    """The `# expect:` verdict and optional `# message:` substring in a file's leading comments."""
    expect = message = None
    for line in source.decode("utf-8", "replace").splitlines()[:10]:
        match = re.match(r"#\s*(expect|message|device):\s*(.+?)\s*$", line)
        if match and match.group(1) == "expect":
            expect = match.group(2)
        elif match and match.group(1) == "message":
            message = match.group(2)
    return expect, message


def judging_files(path: Path, meta: dict[str, Any]) -> list[str]:
    """The package's files that decide a verdict: the kind's, the shared modules and the mistakes' solutions."""
    kind = KINDS.get(meta.get("kind", "custom"))
    own = kind.files if kind else ()
    solutions = [mistake["solution"] for mistake in meta.get("mistakes", []) if "solution" in mistake]
    return [*JUDGING_FILES, *own, *meta.get("modules", []), *solutions]


def version_of(path: Path, files: list[str]) -> str:
    """A hash of the files that decide a verdict, the kit's included."""
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode() + b"\0" + (path / name).read_bytes() + b"\0")
    for name in KIT_FILES:
        digest.update(b"kit/" + name.encode() + b"\0" + (KIT_DIR / name).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def list_problems(problems_dir: Path | str | None = None) -> list[Problem]:
    """Every problem package under problems_dir, by slug."""
    root = Path(problems_dir) if problems_dir else DEFAULT_PROBLEMS_DIR
    return [load_problem(path.parent.name, root) for path in sorted(root.glob("*/problem.toml"))]


def load_problem(slug: str, problems_dir: Path | str | None = None) -> Problem:
    """The problem package problems_dir/slug; ProblemError if missing or malformed."""
    root = Path(problems_dir) if problems_dir else DEFAULT_PROBLEMS_DIR
    if not SLUG.match(slug):
        raise ProblemError(f"{slug!r} is not a problem slug")
    path = root / slug
    if not (path / "problem.toml").is_file():
        raise ProblemError(f"no problem {slug!r} in {root}")
    try:
        meta = tomllib.loads((path / "problem.toml").read_text())
    except tomllib.TOMLDecodeError as error:
        raise ProblemError(f"problem {slug!r}: problem.toml: {error}") from None
    missing = [name for name in (*judging_files(path, meta), *SHOWN_FILES) if not (path / name).is_file()]
    if missing:
        raise ProblemError(f"problem {slug!r} lacks {', '.join(missing)}")
    try:
        return _problem_from(slug, path, meta)
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as error:
        raise ProblemError(f"problem {slug!r}: problem.toml: {error}") from None


def _problem_from(slug: str, path: Path, meta: dict[str, Any]) -> Problem:
    kind = meta.get("kind", "custom")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}")
    refuse_unknown_keys(meta, {**COMMON_TABLES, **KINDS[kind].tables}, f"a {kind} problem")
    tests = [TestSpec(name=t["name"], params=dict(t.get("params", {})), sample=bool(t.get("sample", False)),
                      timed=bool(t.get("timed", False))) for t in meta["tests"]]
    names = [test.name for test in tests]
    if len(set(names)) != len(names) or not tests:
        raise ValueError("tests need unique names, and at least one")
    if any(test.sample and test.timed for test in tests):
        raise ValueError("timed tests must be hidden (sample = false)")
    if any(later.sample and not earlier.sample for earlier, later in zip(tests, tests[1:])):
        # The judge stops showing the process's output once hidden inputs reach it.
        raise ValueError("sample tests must come before the hidden ones")
    if not all(isinstance(n, str) and n.endswith(".py") and "/" not in n for n in meta.get("modules", [])):
        raise ValueError("modules lists .py files of the package")
    if meta.get("needs", "any") not in NEEDS or meta["difficulty"] not in DIFFICULTIES:
        raise ValueError(f"needs must be one of {NEEDS} and difficulty one of {DIFFICULTIES}")
    interface = dict(meta.get("interface", {}))
    if "interface" in KINDS[kind].tables and not isinstance(interface.get("call"), str):
        raise ValueError(f"a {kind} problem's [interface] names its `call`")
    reach = interface.get("reach", {})
    if not isinstance(reach, dict) or (reach and set(REACH_KEYS) - {"output"} - set(reach)):
        raise ValueError(f"[interface.reach] sets {', '.join(sorted(REACH_KEYS))} (output is optional)")
    stems, allowed = meta.get("forbidden_stems", []), meta.get("allowed_operators", {})
    if not (isinstance(stems, list) and all(isinstance(stem, str) and stem for stem in stems)):
        raise ValueError("forbidden_stems lists the stems of operator names the problem is about")
    if not (isinstance(allowed, dict) and all(isinstance(why, str) and why.strip() for why in allowed.values())):
        raise ValueError("[allowed_operators] maps each operator a forbidden stem matches but the problem allows to why")
    threads = meta.get("threads", kind == "ranks")
    if not isinstance(threads, bool):
        raise ValueError("`threads` is true or false: whether a submission may start threads of its own")
    mistakes = list(meta.get("mistakes", []))
    spec_only = [m for m in mistakes if not (isinstance(m, dict) and set(m) == {"solution", "says"})]
    if not all(isinstance(m, dict) and {"spec", "says"} <= set(m) <= SPEC_MISTAKE_KEYS
               for m in spec_only):
        raise ValueError("each [[mistakes]] has what it `says` and a `solution` (a path in the package), or a `spec` "
                         "function with optional `with` (its keywords) and `when` (the params it applies to)")
    return Problem(
        slug=slug, path=path, title=meta["title"], difficulty=meta["difficulty"], tags=list(meta.get("tags", [])),
        needs=meta.get("needs", "any"), world_size=int(meta.get("world_size", 1)),
        entry_points=list(meta["entry_points"]), forbidden=list(meta.get("forbidden", [])),
        modules=list(meta.get("modules", [])),
        limits=Limits(**meta.get("limits", {})), tests=tests,
        version=version_of(path, judging_files(path, meta)),
        kind=kind, topics=list(meta.get("topics", [])), interface=interface,
        tolerance=dict(meta.get("tolerance", {})), mistakes=mistakes, threads=threads, declared=meta,
    )
