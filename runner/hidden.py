"""What the judge says about a process that holds hidden inputs: only its own words, and facts it can bound.

Once a request has carried a hidden test's inputs into the user's process, anything the process sends back
can carry them out: an exception's message, the name of a class it made up, names in a report, the code it
exits with. From then on a failure's message is made here, from the status, an exception's type when it is
one of Python's or torch's own classes, the line of the submission's file it was raised at, and names the
trusted side knows itself (the problem's forbidden operators, the inputs it sent). Each of those can still
be forged, but only within its bounds: a few known type names, a line the file has.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .harness.measure import forbids
from .harness.ranks import stuck_message
from .harness.serve import SOLUTION_FILENAME
from .sandbox.process import PROTOCOL
from .verdict import MEMORY_LIMIT_EXCEEDED, WRONG_ANSWER

NOT_SHOWN = "hidden tests do not show error text"
TAMPERED = f"the submission tampered with the judge's operator watch; {NOT_SHOWN}"
_FRAME = re.compile(r'^\s+File "(?P<file>[^"\n]*)", line (?P<line>\d+)')
_EXCEPTION_LINE = re.compile(r"^(?:rank \d+: )?(?P<type>[A-Za-z_][\w.]*)(?::|$)")
_STUCK_RANKS = re.compile(r"^(?:rank (\d{1,3})|ranks (\d{1,3}(?:, \d{1,3})+)) waited ")


def known_exception_types() -> set[str]:
    """Every exception class of Python's and torch's loaded in this (trusted) process, as a traceback
    names it: builtins bare, others with their module."""
    found: set[str] = set()
    seen: set[type] = set()
    stack = [BaseException]
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        stack.extend(type.__subclasses__(cls))
        module = cls.__module__
        if module == "builtins":
            found.add(cls.__qualname__)
        elif module == "torch" or module.startswith("torch."):
            found.add(f"{module}.{cls.__qualname__}")
    return found


def raised_at(message: str, source_lines: int) -> tuple[str | None, int | None]:
    """The type of the exception a harness's traceback text names, when it is a known one, and the line of
    the submission's file of the innermost frame in it, when the file has that line."""
    lines = message.splitlines()
    frames = [(index, match) for index, text in enumerate(lines) if (match := _FRAME.match(text))]
    line = next((int(match["line"]) for _, match in reversed(frames) if match["file"] == SOLUTION_FILENAME), None)
    if line is not None and not 1 <= line <= source_lines:
        line = None
    after = frames[-1][0] + 1 if frames else 0
    head = next((text for text in lines[after:] if text and not text[0].isspace()), "")
    match = _EXCEPTION_LINE.match(head)
    kind = match["type"] if match and match["type"] in known_exception_types() else None
    return kind, line


def error_message(status: str, message: str, when: str, source_lines: int) -> str:
    """The words for an error the harness reported: runtime_error, memory_limit_exceeded or wrong_answer."""
    if stuck_ranks(message) is not None:
        return f"{when}: {message}"
    kind, line = raised_at(message, source_lines)
    at = f", at line {line} of your file" if line else ""
    if status == WRONG_ANSWER:
        said = "the problem's driver found the result wrong"
    elif status == MEMORY_LIMIT_EXCEEDED:
        said = f"memory ran out ({kind})" if kind else "memory ran out or passed a limit of this problem"
    else:
        said = f"{kind or 'an exception'} was raised"
    return f"{said} {when}{at}; {NOT_SHOWN}"


def stuck_ranks(message: str) -> list[int] | None:
    """The ranks a stuck group's message names (runner/harness/ranks.py) when it is that message word for word,
    which carries nothing of a test's inputs but the ranks that did not answer; else None."""
    match = _STUCK_RANKS.match(message)
    if match is None:
        return None
    ranks = [int(rank) for rank in (match[1] or match[2]).split(", ")]
    return ranks if message == stuck_message(ranks) else None


def forbidden_calls(reported: Iterable[str], patterns: list[str]) -> list[str]:
    """The reported calls that name an operator the problem forbids (the rest may be anything at all)."""
    forbidden = forbids(patterns)
    return [name for name in reported if forbidden(name)]


def ended_detail(cause: str | None, detail: str, when: str) -> str:
    """How a process that ended is described: a kill for memory or time is the trusted side's own account;
    an exit code, a signal or a malformed frame is the submission's to choose."""
    if cause is None:
        return f"the process ended before answering {when}; hidden tests do not show an exit code or a signal"
    if cause == PROTOCOL:
        return f"the process sent something that is not a judge frame {when}; hidden tests do not show what"
    return f"{detail} {when}"
