"""One search over the site: questions, problems, drills and published sets, ranked together, typos forgiven.

On PostgreSQL each title and text is ranked by pg_trgm's word similarity to the query (migration 0020 enables
the extension), so "attension" finds attention as it is. SQLite has no trigrams: a word of the query that no
text holds is replaced by the nearest term, by edit distance, of the questions' FTS5 index's own vocabulary
(its Porter stems, read through an fts5vocab table), and the page says what was searched for instead.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

import snowballstemmer
from django.contrib.postgres.search import TrigramWordSimilarity
from django.db import connection
from django.db.models import F, Q, QuerySet
from django.db.models.fields.json import KT

from interview.models import Drill, Problem, ProblemSet, Question

# What a hit must reach to be shown, of pg_trgm's word similarity between the query and its title or text.
MIN_SIMILARITY = 0.4
MAX_HITS = 40
SUMMARY_CHARACTERS = 180
_WORD = re.compile(r"\w+")
# Words this short are looked for as they are: an edit or two would turn them into most other short words.
_MIN_CORRECTED_LENGTH = 4
_VOCABULARY = "interview_question_search_vocab"


@dataclass(frozen=True)
class Source:
    """One kind of thing the search finds: its rows, and the field or expression holding its text."""

    kind: str
    rows: Callable[[], QuerySet]
    text: object


SOURCES = (
    Source("Question", lambda: Question.objects.live(), F("prompt")),
    Source("Problem", lambda: Problem.objects.live(), F("statement_markdown")),
    Source("Drill", lambda: Drill.objects.live(), KT("spec__prompt")),
    Source("Set", lambda: ProblemSet.objects.published(), F("description")),
)


@dataclass(frozen=True)
class Hit:
    kind: str
    title: str
    url: str
    summary: str
    score: float


@dataclass(frozen=True)
class SiteSearch:
    query: str
    searched: str  # the query as searched, a word no text holds replaced by the nearest one the index knows
    hits: list[Hit]

    @property
    def corrected(self) -> bool:
        return self.searched != self.query


def site_search(query: str) -> SiteSearch:
    """The live questions, problems and drills and the published sets that match query, best first."""
    query = " ".join(query.split())
    if not _WORD.search(query):
        return SiteSearch(query, query, [])
    if connection.vendor == "postgresql":
        hits = [hit for source in SOURCES for hit in _similar(source, query)]
        searched = query
    else:
        searched = _corrected(query)
        hits = [hit for source in SOURCES for hit in _containing(source, searched)]
    # Of equal matches the shorter title first: the query is more of what it names.
    hits.sort(key=lambda hit: (-hit.score, len(hit.title), hit.kind, hit.title))
    return SiteSearch(query, searched, hits[:MAX_HITS])


def _hit(source: Source, row, text: str, score: float) -> Hit:
    summary = " ".join(text.replace("{", "").replace("}", "").split())
    if len(summary) > SUMMARY_CHARACTERS:
        summary = summary[:SUMMARY_CHARACTERS].rsplit(" ", 1)[0] + "…"
    return Hit(source.kind, row.title, row.get_absolute_url(), summary, score)


def _similar(source: Source, query: str) -> list[Hit]:
    """PostgreSQL: rows whose title or text is like the query, by trigram word similarity, the title counting
    twice and a title holding the query as it is once more."""
    rows = (source.rows().annotate(found_text=source.text,
                                   title_similarity=TrigramWordSimilarity(query, "title"),
                                   text_similarity=TrigramWordSimilarity(query, source.text))
            .filter(Q(title_similarity__gte=MIN_SIMILARITY) | Q(text_similarity__gte=MIN_SIMILARITY)))
    return [_hit(source, row, row.found_text or "",
                 2 * row.title_similarity + row.text_similarity + (query.lower() in row.title.lower()))
            for row in rows]


def _containing(source: Source, query: str) -> list[Hit]:
    """SQLite: rows whose title or text holds every word of the query, ranked by the share of its words the
    title holds (counting twice) and the text holds, and a title holding the query as it is once more."""
    words = [word.lower() for word in _WORD.findall(query)]
    rows = source.rows().annotate(found_text=source.text)
    for word in words:
        rows = rows.filter(Q(title__icontains=word) | Q(found_text__icontains=word))
    hits = []
    for row in rows:
        title, text = row.title.lower(), (row.found_text or "").lower()
        score = (2 * sum(word in title for word in words) + sum(word in text for word in words)) / len(words)
        hits.append(_hit(source, row, row.found_text or "", score + (query.lower() in title)))
    return hits


def _corrected(query: str) -> str:
    """query with each word that no text of the site holds replaced by the nearest word the index knows."""
    words = _WORD.findall(query)
    for word in words:
        if len(word) < _MIN_CORRECTED_LENGTH or _held_anywhere(word):
            continue
        stem = _nearest_term(word)
        if stem is not None:
            query = re.sub(rf"\b{re.escape(word)}\b", _written_form(stem), query, count=1)
    return query


def _held_anywhere(word: str) -> bool:
    return any(source.rows().annotate(found_text=source.text)
               .filter(Q(title__icontains=word) | Q(found_text__icontains=word)).exists() for source in SOURCES)


def _nearest_term(word: str) -> str | None:
    """The index's term nearest to word's Porter stem (the index's own tokenizer stems with Porter), within an
    edit per three letters; of equals, the one in the most questions."""
    stem = snowballstemmer.stemmer("porter").stemWord(word.lower())
    allowed = max(1, len(stem) // 3)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT term, doc FROM {_VOCABULARY} WHERE length(term) BETWEEN %s AND %s",
                       [len(stem) - allowed, len(stem) + allowed])
        terms = cursor.fetchall()
    scored = [(distance, -documents, term) for term, documents in terms
              if (distance := edit_distance(stem, term)) <= allowed]
    return min(scored)[2] if scored else None


def _written_form(stem: str) -> str:
    """The word as the bank writes it that the stem comes from: the commonest in the titles and prompts."""
    pattern = re.compile(rf"\b{re.escape(stem)}\w*", re.IGNORECASE)
    counts: dict[str, int] = {}
    for title, prompt in Question.objects.live().filter(
            Q(title__icontains=stem) | Q(prompt__icontains=stem)).values_list("title", "prompt"):
        for found in pattern.findall(f"{title} {prompt}"):
            counts[found.lower()] = counts.get(found.lower(), 0) + 1
    return max(counts, key=lambda found: (counts[found], -len(found))) if counts else stem


def edit_distance(first: str, second: str) -> int:
    """Levenshtein's distance: the insertions, deletions and substitutions that make one string the other."""
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, start=1):
        current = [i]
        for j, b in enumerate(second, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]
