"""The bank topics a coding problem practises, as its problem.toml names them: `topics = ["<id>", ...]`.

Each id is a topic of problems/questions/topics.yaml; the problem list filters by them, a question's page
links to the problems of its topic, and a generated mock interview spreads its problems over them. Parsing
touches no database: whether each id names a live topic is for the sync to check
(interview.services.problem_topic_sync).
"""

import tomllib
from pathlib import Path

from interview.content.errors import ContentError, ContentProblem
from interview.content.questions import SLUG_PATTERN

FIELD = "topics"
MOST_TOPICS = 3


def _topic_problems(value) -> list[tuple[str, str]]:
    if value is None or value == []:
        return [(FIELD, "names no topic: list one to three topic ids of questions/topics.yaml")]
    if not isinstance(value, list):
        return [(FIELD, "must be a list of topic ids")]
    if len(value) > MOST_TOPICS:
        return [(FIELD, f"names {len(value)}; a problem practises at most {MOST_TOPICS} topics")]
    problems = [(f"{FIELD}[{index}]", f"{slug!r} is not an id (lowercase words joined by '-')")
                for index, slug in enumerate(value, start=1)
                if not isinstance(slug, str) or not SLUG_PATTERN.match(slug)]
    if not problems:
        problems += [(FIELD, f"{slug!r} is listed twice")
                     for slug in sorted({slug for slug in value if value.count(slug) > 1})]
    return problems


def load_problem_topics(content_dir: Path) -> dict[str, tuple[str, ...]]:
    """Per problem slug, the topic ids its problem.toml lists, in order; ContentError on any fault."""
    topics, problems = {}, []
    for toml in sorted(Path(content_dir).glob("*/problem.toml")):
        path = f"{toml.parent.name}/problem.toml"
        try:
            value = tomllib.loads(toml.read_text()).get(FIELD)
        except tomllib.TOMLDecodeError as error:
            problems.append(ContentProblem(path, "", str(error)))
            continue
        faults = _topic_problems(value)
        problems += [ContentProblem(path, field, message) for field, message in faults]
        if not faults:
            topics[toml.parent.name] = tuple(value)
    if problems:
        raise ContentError(problems)
    return topics
