"""Which key points a free-text answer covers, judged from the phrasings the bank writes for each point.

A phrasing matches when all of its content words occur in the answer close together (within a window that
grows with the phrasing's length), in any order and any inflection. Both sides go through one analysis:

- tokens are runs of letters and digits, so `fp16`, `bf16` and `1f1b` stay whole, and big-O terms such as
  `O(T^2)` or `O(T²)` are one token; hyphens and underscores split words, and the joined form is kept too
  (`warm-up` is `warm`, `up` and `warmup`; two adjacent words also offer their join, so `warm up` matches
  a phrasing that says `warmup`);
- British spellings become American ones (-ise/-isation, -yse, the common -our words), so that the stemmer
  sees one form; this only has to be consistent, since both sides are normalised the same way;
- a small table maps abbreviations and their long forms to one word (`bfloat16` is `bf16`, `key-value` is
  `kv`, `gpus` is `gpu`);
- stop words are dropped (negations too: a first pass errs towards crediting, and the user corrects it),
  and the rest is stemmed with the Snowball English stemmer (tokens with digits are left as they are).

Nothing here touches the database, so it can be tested and reused anywhere.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

# A phrasing of n content words matches when they all fall within this many content words per word.
WINDOW_PER_WORD = 4
MIN_WINDOW = 6

_BIG_O = r"[oθΘ]\([^()\s]{1,16}\)"
_WORD = r"[^\W_]+"
_CHUNK = re.compile(rf"{_BIG_O}|{_WORD}(?:[-_]{_WORD})*", re.IGNORECASE)
_PART = re.compile(_WORD)
_SUPERSCRIPTS = str.maketrans({"²": "^2", "³": "^3", "⁴": "^4", "Θ": "o", "θ": "o"})

STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each either else even ever every few for
from further had has have having he her here hers herself him himself his how however i if in into is it its
itself just let like may me might more most much must my myself neither no nor not now of off on once only or
other ought our ours ourselves out over own per quite rather same shall she should so some such than that the
their theirs them themselves then there these they this those though through thus to too under until up upon
us very via was we were what when where whether which while who whom whose why will with within without would
yet you your yours yourself yourselves s t d ll re ve m don doesn didn isn aren wasn weren won wouldn shouldn
couldn cannot never etc e g ie eg really basically actually simply
""".split())

# Single words (as written, after spelling normalisation) that mean the same as another.
SYNONYMS = {
    "bfloat16": "bf16", "brainfloat16": "bf16", "float16": "fp16", "float32": "fp32",
    "float8": "fp8", "float64": "fp64", "int4": "int4", "keyvalue": "kv", "gpus": "gpu", "cpus": "cpu",
    "tpus": "tpu", "llms": "llm", "gans": "gan", "vaes": "vae", "moes": "moe", "mlps": "mlp", "ffns": "ffn",
    "rnns": "rnn", "cnns": "cnn", "lstms": "lstm", "kvs": "kv", "params": "parameter", "param": "parameter",
    "grads": "gradient", "grad": "gradient", "seq": "sequence", "seqlen": "sequence", "attn": "attention",
    "mem": "memory", "flashattn": "flashattention", "allreduce": "allreduce", "sdpa": "sdpa",
    "tokenizer": "tokenizer", "ddp": "ddp", "fsdp": "fsdp", "nvlink": "nvlink", "hbm": "hbm",
    "adamw": "adamw", "relu": "relu", "gelu": "gelu", "silu": "silu", "swish": "silu", "layernorm": "layernorm",
    "rmsnorm": "rmsnorm", "lora": "lora", "qlora": "qlora", "rope": "rope", "mqa": "mqa", "gqa": "gqa",
    "centre": "center", "centred": "centered", "metre": "meter", "programme": "program", "catalogue": "catalog",
    "analogue": "analog", "dialogue": "dialog", "grey": "gray", "licence": "license", "defence": "defense",
    "modelled": "modeled", "modelling": "modeling", "labelled": "labeled", "labelling": "labeling",
    "signalling": "signaling", "cancelled": "canceled", "travelled": "traveled", "fuelled": "fueled",
}  # fmt: skip
# Phrases of several words that mean one word; on the answer's side they are offered as an alternative.
PHRASES = {
    ("key", "value"): "kv", ("mixture", "of", "experts"): "moe", ("large", "language", "model"): "llm",
    ("large", "language", "models"): "llm", ("brain", "float"): "bf16", ("half", "precision"): "fp16",
    ("single", "precision"): "fp32", ("flash", "attention"): "flashattention", ("all", "reduce"): "allreduce",
    ("layer", "norm"): "layernorm", ("rms", "norm"): "rmsnorm", ("low", "rank", "adaptation"): "lora",
    ("rotary", "position", "embedding"): "rope", ("rotary", "positional", "embedding"): "rope",
    ("rotary", "embeddings"): "rope", ("rotary", "position", "embeddings"): "rope",
    ("grouped", "query", "attention"): "gqa", ("multi", "query", "attention"): "mqa",
}  # fmt: skip
_LONGEST_PHRASE = max(len(phrase) for phrase in PHRASES)

_OUR_WORDS = re.compile(
    r"^(behavi|col|fav|neighb|hon|lab|flav|vap|rum|hum|harb|arm|endeav|sav|od|vig|rig|tum|parl)our"
)
_ISE = re.compile(r"(?<=[a-z]{2})is(e|ed|es|er|ers|ing|ation|ations|ational)$")
_YSE = re.compile(r"(?<=[a-z]{2})ys(e|ed|es|er|ers|ing)$")


@dataclass(frozen=True)
class Word:
    """A word of the text: its spelling-normalised lowercase form and where it is in the original."""

    raw: str
    start: int
    end: int
    joined: str | None = None  # the whole hyphenated compound this word starts, joined
    continued: bool = False  # a later part of a hyphenated compound


@dataclass(frozen=True)
class Token:
    """A content position of an analysed answer: every form it may match, and its span in the original."""

    forms: frozenset[str]
    start: int
    end: int


@dataclass(frozen=True)
class KeyPointMatch:
    """Whether an answer covers one key point, and the evidence: the phrasing and the stretch that matched."""

    index: int
    covered: bool
    phrasing: str = ""
    evidence: str = ""


def normalise_spelling(word: str) -> str:
    """One spelling for British and American forms: -ise → -ize, -yse → -yze, colour → color."""
    if word.endswith("wise"):
        return word
    word = _OUR_WORDS.sub(lambda match: match.group(1) + "or", word)
    word = _ISE.sub(lambda match: "iz" + match.group(1), word)
    return _YSE.sub(lambda match: "yz" + match.group(1), word)


@lru_cache(maxsize=1)
def _stemmer():
    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=50_000)
def canonical(raw: str) -> str:
    """The form a normalised word is compared in: its synonym, stemmed unless it holds digits or symbols."""
    word = SYNONYMS.get(raw, raw)
    if not word.isalpha():
        return word
    return SYNONYMS.get(_stemmer().stemWord(word), _stemmer().stemWord(word))


def _normalise(text: str) -> str:
    return normalise_spelling(unicodedata.normalize("NFKC", text.translate(_SUPERSCRIPTS)).lower().replace("**", "^"))


def words(text: str) -> list[Word]:
    """The words of text in order: a hyphenated compound gives its parts, the first carrying the join."""
    found = []
    for chunk in _CHUNK.finditer(text):
        if re.fullmatch(_BIG_O, chunk.group(), re.IGNORECASE):
            found.append(Word(_normalise(chunk.group()), chunk.start(), chunk.end()))
            continue
        parts = list(_PART.finditer(chunk.group()))
        joined = _normalise("".join(part.group() for part in parts)) if len(parts) > 1 else None
        for number, part in enumerate(parts):
            found.append(Word(_normalise(part.group()), chunk.start() + part.start(), chunk.start() + part.end(),
                              joined if number == 0 else None, continued=number > 0))
    return found


def analyse(text: str) -> list[Token]:
    """An answer as content positions, each with every form it may be matched by."""
    sequence = words(text)
    tokens = []
    for index, word in enumerate(sequence):
        forms = set() if word.raw in STOP_WORDS else {canonical(word.raw)}
        if word.joined:
            forms.add(canonical(word.joined))
        following = sequence[index + 1] if index + 1 < len(sequence) else None
        if following is not None and _adjacent_words(text, word, following):
            forms.add(canonical(word.raw + following.raw))
        for length in range(2, _LONGEST_PHRASE + 1):
            phrase = tuple(other.raw for other in sequence[index : index + length])
            if phrase in PHRASES:
                forms.add(PHRASES[phrase])
        if forms:
            tokens.append(Token(frozenset(forms), word.start, word.end))
    return tokens


def _adjacent_words(text: str, word: Word, following: Word) -> bool:
    """A content word and the next word, only spaces between them, which a writer might also have joined
    (`warm up`, `pre norm`)."""
    return (word.raw.isalpha() and following.raw.isalpha() and word.raw not in STOP_WORDS
            and text[word.end : following.start].isspace())


@lru_cache(maxsize=20_000)
def phrasing_terms(phrasing: str) -> tuple[str, ...]:
    """The content words a phrasing needs, in canonical form: a compound or a known phrase counts as one."""
    sequence = words(phrasing)
    terms: list[str] = []
    index = 0
    while index < len(sequence):
        for length in range(_LONGEST_PHRASE, 1, -1):
            phrase = tuple(word.raw for word in sequence[index : index + length])
            if phrase in PHRASES:
                terms.append(PHRASES[phrase])
                index += length
                break
        else:
            word = sequence[index]
            if word.joined:
                terms.append(canonical(word.joined))
                index += 1
                while index < len(sequence) and sequence[index].continued:
                    index += 1
                continue
            if word.raw not in STOP_WORDS:
                terms.append(canonical(word.raw))
            index += 1
    return tuple(dict.fromkeys(terms))


@lru_cache(maxsize=256)
def _indexed(text: str) -> tuple[list[Token], dict[str, list[int]]]:
    """The answer's tokens, and for each form the positions holding it (a report matches one answer often)."""
    tokens = analyse(text)
    index: dict[str, list[int]] = {}
    for at, token in enumerate(tokens):
        for form in token.forms:
            index.setdefault(form, []).append(at)
    return tokens, index


def find_phrasing(text: str, phrasing: str) -> tuple[int, int] | None:
    """The narrowest (first, last) token positions of text holding every term of phrasing close together."""
    terms = phrasing_terms(phrasing)
    if not terms:
        return None
    positions = [_indexed(text)[1].get(term) for term in terms]
    if any(not found for found in positions):
        return None
    best = _narrowest_cover(positions)
    window = max(MIN_WINDOW, WINDOW_PER_WORD * len(terms))
    return best if best[1] - best[0] < window else None


def _narrowest_cover(positions: list[list[int]]) -> tuple[int, int]:
    """The smallest range holding one position from each list (each list ascending)."""
    heap = [(found[0], term, 0) for term, found in enumerate(positions)]
    heapq.heapify(heap)
    high = max(found[0] for found in positions)
    best = (heap[0][0], high)
    while True:
        low, term, at = heapq.heappop(heap)
        if high - low < best[1] - best[0]:
            best = (low, high)
        if at + 1 == len(positions[term]):
            return best
        following = positions[term][at + 1]
        high = max(high, following)
        heapq.heappush(heap, (following, term, at + 1))


def match_key_points(answer: str, key_points: list[dict]) -> list[KeyPointMatch]:
    """For each key point ({text, phrasings}), whether answer covers it: one of its phrasings matches."""
    tokens = _indexed(answer)[0]
    matches = []
    for index, point in enumerate(key_points):
        for phrasing in point.get("phrasings", []):
            found = find_phrasing(answer, phrasing)
            if found is not None:
                evidence = answer[tokens[found[0]].start : tokens[found[1]].end]
                matches.append(KeyPointMatch(index, True, phrasing, evidence))
                break
        else:
            matches.append(KeyPointMatch(index, False))
    return matches


def covered_indices(answer: str, key_points: list[dict]) -> list[int]:
    """The indices of the key points answer covers."""
    return [match.index for match in match_key_points(answer, key_points) if match.covered]
