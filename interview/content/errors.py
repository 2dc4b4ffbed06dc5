"""What is wrong with a content file, said so that its author can find and fix it."""

from dataclasses import dataclass


@dataclass(frozen=True)
class ContentProblem:
    """One fault in one file: its path (relative to the content folder), the field, and what is wrong."""

    path: str
    field: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class ContentError(Exception):
    """Every problem found in the content; nothing is loaded while there is one."""

    def __init__(self, problems: list[ContentProblem]):
        self.problems = sorted(problems, key=lambda p: (p.path, p.line or 0, p.field))
        super().__init__(self._describe())

    def _describe(self) -> str:
        count = len(self.problems)
        heading = f"{count} problem{'s' if count != 1 else ''} in the content:"
        return "\n".join([heading, *(f"  {problem}" for problem in self.problems)])
