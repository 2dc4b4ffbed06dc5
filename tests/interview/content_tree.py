"""A content folder built file by file, for tests of parsing and syncing the question bank."""

import shutil
import textwrap
from pathlib import Path

import yaml

DEFAULT_TOPICS = [
    {"id": "attention", "name": "Attention", "description": "Attention and its cost."},
    {"id": "parallelism", "name": "Distributed training", "description": "Splitting work across GPUs."},
]
SEED = "000_seed.txt"


class ContentTree:
    """A temporary content folder (topics.yaml, seeds/, question files) that a test edits like an author."""

    def __init__(self, root: Path):
        self.root = root
        (root / "seeds").mkdir(parents=True)
        (root / "seeds" / SEED).write_text("A seed document.\n")
        self.write_topics(DEFAULT_TOPICS)

    def write_topics(self, topics: list[dict]) -> None:
        path = self.root / "questions" / "topics.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(topics, sort_keys=False))

    def question_text(self, slug: str, *, answer: str | None = None, **fields) -> str:
        front_matter = {
            "id": slug,
            "title": f"Title of {slug}",
            "topic": "attention",
            "difficulty": "medium",
            "source": SEED,
            "prompt": f"Explain {slug}.",
            "key_points": [
                {"text": f"{slug} point {n}", "phrasings": [f"{slug} phrase {n}a", f"{slug} phrase {n}b"]}
                for n in range(1, 4)
            ],
            **fields,
        }
        front_matter = {name: value for name, value in front_matter.items() if value is not None}
        body = answer if answer is not None else f"The model answer about **{slug}**.\n"
        return f"---\n{yaml.safe_dump(front_matter, sort_keys=False)}---\n{body}"

    def write_question(self, slug: str, *, path: str | None = None, **fields) -> Path:
        """Write a valid question file (fields override the defaults; None removes one) and return its path."""
        topic = fields.get("topic", "attention")
        target = self.root / (path or f"questions/{topic}/{slug}.md")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.question_text(slug, **fields))
        return target

    def write_raw(self, path: str, text: str) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
        return target

    def move(self, old: str, new: str) -> None:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(self.root / old, self.root / new)

    def remove(self, path: str) -> None:
        (self.root / path).unlink()
