"""The repository's own content (problems/), read leniently so that one broken file does not hide the rest."""

from pathlib import Path

from interview.content.errors import ContentError
from interview.content.questions import question_paths, split_front_matter

ROOT = Path(__file__).resolve().parents[2]
CONTENT = ROOT / "problems"


def front_matter_by_id() -> dict[str, tuple[dict, str]]:
    """Each question file's front matter and Markdown body, by id; files whose front matter does not parse
    are left out (test_question_bank reports them)."""
    questions = {}
    for path in question_paths(CONTENT):
        try:
            front_matter, body = split_front_matter(path.read_text(encoding="utf-8"), str(path))
        except (ContentError, UnicodeDecodeError):
            continue
        if isinstance(front_matter.get("id"), str):
            questions[front_matter["id"]] = (front_matter, body)
    return questions
