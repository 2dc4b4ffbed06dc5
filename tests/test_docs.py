"""The documentation's own links: every relative link of README.md, docs/*.md and problems/README.md leads to a
file that exists, and its `#anchor` to a heading of that file.

Anchors are made as GitHub makes them from a heading: its text without Markdown's marks, lower-cased, every
character but letters, digits, spaces, `-` and `_` dropped, spaces made `-`, and `-1`, `-2`, ... after a heading
met before.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "problems" / "README.md"]
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose(text: str) -> str:
    """text without its fenced code blocks, where a link or a heading is an example, not one of the document's."""
    return FENCE.sub("", text)


def anchors(path: Path) -> set[str]:
    """The anchors of path's headings, as GitHub makes them."""
    found, seen = set(), {}
    for heading in HEADING.findall(prose(path.read_text())):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").replace("*", "")
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(f"{slug}-{count}" if count else slug)
    return found


def links(path: Path) -> list[str]:
    """Every relative link of path's prose (code spans and fenced blocks left out), as written."""
    return [target for target in LINK.findall(CODE_SPAN.sub("", prose(path.read_text())))
            if not EXTERNAL.match(target)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=[str(path.relative_to(ROOT)) for path in DOCUMENTS])
def test_every_relative_link_leads_to_a_file_and_a_heading_that_exist(document):
    broken = []
    for target in links(document):
        name, _, anchor = target.partition("#")
        linked = (document.parent / name).resolve() if name else document
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading of {linked.name} makes #{anchor}")
    assert broken == []


def test_the_anchors_are_made_as_github_makes_them(tmp_path):
    document = tmp_path / "doc.md"
    document.write_text("# Title\n\n## `problem.toml`\n\n### checker.py (a custom problem, trusted)\n\n## Title\n\n"
                        "```markdown\n## Not a heading\n```\n\n## The queue: Redis or the [default](x.md)\n")
    assert anchors(document) == {"title", "problemtoml", "checkerpy-a-custom-problem-trusted", "title-1",
                                 "the-queue-redis-or-the-default"}


def test_a_link_in_code_is_an_example_not_a_link(tmp_path):
    document = tmp_path / "doc.md"
    document.write_text("See [the guide](guide.md#start) and [the site](https://example.org).\n\n"
                        "`[click](javascript:x)` and `[a](b.md)`\n\n```markdown\n[c](d.md)\n```\n")
    assert links(document) == ["guide.md#start"]
