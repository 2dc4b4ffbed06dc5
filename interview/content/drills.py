"""Estimation drills as git holds them: one TOML file per drill, drills/<topic>/<id>.toml, beside the bank.

The format is described in problems/README.md. A drill is validated whole when it loads: every formula is
parsed by the drill evaluator, every unit by pint, and the steps are evaluated for every combination of its
parameters (a sample, where there are too many), so a drill that loads can always be drawn and graded.
"""

import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from interview.content.errors import ContentError, ContentProblem
from interview.content.questions import DIFFICULTIES, SLUG_PATTERN, TITLE_MAX_LENGTH, reflow_paragraphs
from interview.estimation.drills import DrillSpec, Step, spec_problems

DRILLS_FOLDER = "drills"
REQUIRED_FIELDS = ("id", "title", "topic", "difficulty", "prompt", "answer_unit", "tolerance", "parameters",
                   "steps", "citations")
OPTIONAL_FIELDS = ("related",)
STEP_FIELDS = {"name", "formula", "says", "unit"}
CITATION_FIELDS = {"what", "source"}
# A range, `{ from = 8, to = 64, step = 8 }`, stands for its values; at most this many.
RANGE_LIMIT = 1000


@dataclass(frozen=True)
class DrillFile:
    """One drill as its file states it; `path` is relative to the content folder."""

    path: str
    slug: str
    title: str
    topic: str
    difficulty: str
    spec: DrillSpec
    related: tuple[str, ...]
    citations: tuple[dict[str, str], ...]


def drill_paths(content_dir: Path) -> list[Path]:
    return sorted((content_dir / DRILLS_FOLDER).glob("*/*.toml"))


def load_drills(content_dir: Path, *, topic_ids: set[str], question_ids: set[str]) -> tuple[DrillFile, ...]:
    """Read and validate every drill; raise ContentError listing every problem in every file."""
    problems: list[ContentProblem] = []
    drills: list[DrillFile] = []
    for file_path in drill_paths(content_dir):
        path = file_path.relative_to(content_dir).as_posix()
        try:
            data = tomllib.loads(file_path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            problems.append(ContentProblem(path, "", f"not a valid TOML file: {error}"))
            continue
        faults = _field_problems(data, topic_ids, question_ids)
        if not faults:
            drill = _drill(path, data)
            faults = spec_problems(drill.spec)
            folder = PurePosixPath(path).parts[1]
            if folder != drill.topic:
                faults.append(("topic", f"{drill.topic!r} does not match its folder {DRILLS_FOLDER}/{folder}/"))
            drills.append(drill)
        problems += [ContentProblem(path, field, message) for field, message in faults]
    seen: dict[str, str] = {}
    for drill in drills:
        if drill.slug in seen:
            problems.append(ContentProblem(drill.path, "id", f"{drill.slug!r} is also the id of {seen[drill.slug]}"))
        seen.setdefault(drill.slug, drill.path)
    if problems:
        raise ContentError(problems)
    return tuple(drills)


def _drill(path: str, data: dict[str, Any]) -> DrillFile:
    steps = tuple(Step(name=step["name"], formula=step["formula"], says=step["says"], unit=step.get("unit", ""))
                  for step in data["steps"])
    parameters = {name: _values(values) for name, values in data["parameters"].items()}
    spec = DrillSpec(prompt=reflow_paragraphs(data["prompt"]), parameters=parameters, steps=steps,
                     answer_unit=data["answer_unit"], tolerance=data["tolerance"])
    return DrillFile(path=path, slug=data["id"], title=data["title"], topic=data["topic"],
                     difficulty=data["difficulty"], spec=spec, related=tuple(data.get("related", [])),
                     citations=tuple(dict(citation) for citation in data["citations"]))


def _values(values: Any) -> Any:
    """A range table expanded into its values; a list as it is (spec_problems judges what is left)."""
    if isinstance(values, dict) and set(values) == {"from", "to", "step"}:
        start, stop, step = values["from"], values["to"], values["step"]
        if all(isinstance(v, int | float) for v in (start, stop, step)) and step > 0 and start <= stop:
            count = int(round((stop - start) / step)) + 1
            if count <= RANGE_LIMIT:
                return [start + index * step for index in range(count)]
    return values


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _field_problems(data: dict[str, Any], topic_ids: set[str], question_ids: set[str]) -> list[tuple[str, str]]:
    problems = [(name, "missing") for name in REQUIRED_FIELDS if name not in data]
    problems += [(name, "unknown field") for name in sorted(set(data) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS))]
    for name in ("id", "title", "topic", "difficulty", "prompt", "answer_unit"):
        if name in data and not isinstance(data[name], str):
            problems.append((name, "must be a string"))
    if problems:
        return problems
    if not SLUG_PATTERN.match(data["id"]):
        problems.append(("id", f"{data['id']!r} is not lowercase words joined by '-'"))
    if not _is_text(data["title"]) or "\n" in data["title"] or len(data["title"]) > TITLE_MAX_LENGTH:
        problems.append(("title", f"must be one line of at most {TITLE_MAX_LENGTH} characters"))
    if data["topic"] not in topic_ids:
        problems.append(("topic", f"unknown topic {data['topic']!r} (topics.yaml has {', '.join(sorted(topic_ids))})"))
    if data["difficulty"] not in DIFFICULTIES:
        problems.append(("difficulty", f"{data['difficulty']!r} is not one of {', '.join(DIFFICULTIES)}"))
    if not _is_text(data["prompt"]):
        problems.append(("prompt", "must be a non-empty string"))
    if not isinstance(data["parameters"], dict):
        problems.append(("parameters", "must be a table of parameter names"))
    problems += _list_of_tables(data["steps"], "steps", required={"name", "formula", "says"}, allowed=STEP_FIELDS)
    problems += _list_of_tables(data["citations"], "citations", required=CITATION_FIELDS, allowed=CITATION_FIELDS)
    related = data.get("related", [])
    if not isinstance(related, list) or not all(isinstance(slug, str) for slug in related):
        problems.append(("related", "must be a list of question ids"))
    else:
        problems += [("related", f"{slug!r} is not the id of a question in the bank")
                     for slug in related if slug not in question_ids]
    return problems


def _list_of_tables(value: Any, field: str, *, required: set[str], allowed: set[str]) -> list[tuple[str, str]]:
    if not isinstance(value, list) or not value:
        return [(field, "needs at least one entry ([[" + field + "]] tables)")]
    problems = []
    for index, entry in enumerate(value, start=1):
        where = f"{field}[{index}]"
        if not isinstance(entry, dict):
            problems.append((where, "must be a table"))
            continue
        problems += [(where, f"missing `{name}`") for name in sorted(required - set(entry))]
        problems += [(where, f"unknown field `{name}`") for name in sorted(set(entry) - allowed)]
        problems += [(where, f"`{name}` must be a non-empty string") for name in sorted(set(entry) & allowed)
                     if not _is_text(entry[name]) and not (name == "unit" and isinstance(entry[name], str))]
    return problems
