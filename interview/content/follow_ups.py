"""The follow-up questions a coding problem names in its problem.toml: `follow_ups = ["<id>", ...]`.

Each id is a bank question's (problems/questions/) or an estimation drill's (problems/drills/), in the order an
interviewer asks them after the code. Parsing touches no database: whether each id names a live question or
drill is for the sync to check (interview.services.follow_up_sync).
"""

import tomllib
from pathlib import Path

from interview.content.errors import ContentError, ContentProblem
from interview.content.questions import SLUG_PATTERN

FIELD = "follow_ups"
MOST_FOLLOW_UPS = 3


def _follow_up_problems(value) -> list[tuple[str, str]]:
    if not isinstance(value, list):
        return [(FIELD, "must be a list of question or drill ids")]
    if len(value) > MOST_FOLLOW_UPS:
        return [(FIELD, f"names {len(value)}; an interviewer asks at most {MOST_FOLLOW_UPS} after the code")]
    problems = [(f"{FIELD}[{index}]", f"{slug!r} is not an id (lowercase words joined by '-')")
                for index, slug in enumerate(value, start=1)
                if not isinstance(slug, str) or not SLUG_PATTERN.match(slug)]
    if not problems:
        problems += [(FIELD, f"{slug!r} is listed twice: each follow-up is asked once")
                     for slug in sorted({slug for slug in value if value.count(slug) > 1})]
    return problems


def load_follow_ups(content_dir: Path) -> dict[str, tuple[str, ...]]:
    """Per problem slug, the ids its problem.toml lists (none when it has no follow_ups); ContentError on any fault."""
    follow_ups, problems = {}, []
    for toml in sorted(Path(content_dir).glob("*/problem.toml")):
        path = f"{toml.parent.name}/problem.toml"
        try:
            value = tomllib.loads(toml.read_text()).get(FIELD, [])
        except tomllib.TOMLDecodeError as error:
            problems.append(ContentProblem(path, "", str(error)))
            continue
        faults = _follow_up_problems(value)
        problems += [ContentProblem(path, field, message) for field, message in faults]
        if not faults:
            follow_ups[toml.parent.name] = tuple(value)
    if problems:
        raise ContentError(problems)
    return follow_ups
