"""The one analyzer: text → index terms. Stored with the index; every reader uses it.

Code-aware: an identifier is kept whole *and* split into its parts, so a query for
``max_connections``, ``maxConnections`` or ``max connections`` finds the same text.

* ``httpx.AsyncClient``  → ``httpx.asyncclient``, ``httpx``, ``asyncclient``, ``async``, ``client``
* ``max_connections``    → ``maxconnections`` (the compact form), ``max``, ``connect``
* ``create_fts_index()`` → ``createftsindex``, ``creat``, ``fts``, ``index``
* ``中文内容`` → ``中文内容``, ``中文``, ``文内``, ``内容`` (Chinese and Japanese: character pairs)

Word parts are lower-cased, stemmed with Snowball English, and English stopwords are
dropped, except words that mean something in code (``get``, ``set``, ``with``, ``not``,
``from``, ``none``, ``true`` …; the word lists are in ``stopwords.py``). Whole identifiers
are never stemmed.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import TypeVar

import Stemmer

from docmentor.search.stopwords import QUESTION_NOISE, STOPWORDS

T = TypeVar("T")

# Bump when the analyzer or the lexical schema changes: writers then rebuild the index.
ANALYZER_VERSION = "code-bm25-v7"  # v7: identifier parts in a field of their own; search units

# An identifier with optional dotted / ``::`` / ``->`` parts, or a number, or any other word.
_TOKEN_PATTERN = r"[^\W\d_][\w{marks}]*(?:(?:\.|::|->)[^\W\d_][\w{marks}]*)*|\d+(?:\.\d+)*|[^\W_]+"
# The same pattern without the (long) combining-mark class: ASCII text has no marks and this
# one runs ~2.5× faster, which is most of indexing time on real docs.
_ASCII_TOKEN = re.compile(_TOKEN_PATTERN.replace("{marks}", ""))
# On ASCII text the same tokens again, twice as fast with ASCII-only classes.
_ASCII_ONLY_TOKEN = re.compile(_TOKEN_PATTERN.replace("{marks}", ""), re.ASCII)
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SPLIT = re.compile(r"[._:\->]+")


@lru_cache(maxsize=1)
def _token_re() -> re.Pattern[str]:
    """The token pattern, with combining marks inside words: they are parts of letters
    in Devanagari, Thai, Hebrew… (``\\w`` alone would cut हिन्दी into pieces)."""
    return re.compile(_TOKEN_PATTERN.replace("{marks}", _marks()), re.UNICODE)


@lru_cache(maxsize=1)
def _marks() -> str:
    """A regex character-class body of every combining mark (Unicode category M)."""
    from docmentor.search._marks import MARK_RANGES

    return "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in MARK_RANGES)


@lru_cache(maxsize=1)
def _mark_re() -> re.Pattern[str]:
    return re.compile(f"[{_marks()}]")


def _tokens(text: str) -> list[str]:
    """Raw tokens of an NFKC-folded text (identifiers, numbers, words)."""
    if text.isascii():
        return _ASCII_ONLY_TOKEN.findall(text)
    # the mark class is long: look for marks among the non-ASCII characters only
    marked = _mark_re().search(_ASCII_RUNS.sub("", text)) is not None
    return (_token_re() if marked else _ASCII_TOKEN).findall(text)


def query_words(text: str) -> list[str]:
    """The raw tokens :func:`analyze_query` reads from a query (identifiers whole:
    ``open_table``, ``base64``), up to ``MAX_QUERY_CHARS``."""
    return _tokens(_nfkc(text[:MAX_QUERY_CHARS]))


def _nfkc(text: str) -> str:
    """Compatibility forms folded first: ｍａｘ＿ｉｄ is max_id, a decomposed é is é."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def _latin(c: str) -> bool:
    o = ord(c)
    return o < 0x0250 or 0x1E00 <= o < 0x1F00


def _unaccent(text: str) -> str:
    """Strip accents from Latin letters (café → cafe), keeping other scripts as they are.

    Marks on other scripts are letters' parts, not accents: プ is not フ, й is not и,
    and a Devanagari virama is part of the word.
    """
    if text.isascii():
        return text
    out: list[str] = []
    for c in unicodedata.normalize("NFKD", text):
        if out and unicodedata.combining(c) and _latin(out[-1]):
            continue
        out.append(c)
    return unicodedata.normalize("NFC", "".join(out))


def _fold(text: str) -> str:
    return _unaccent(text).lower()


def analyze_token(raw: str) -> tuple[str, ...]:
    """Index terms for one raw token (an identifier, a number or a word)."""
    if _long_cjk(raw):  # not cached: a CJK text's runs are many, long and rarely repeated
        wholes, parts = _cjk_forms(raw)
        return wholes + parts
    return _analyze_token(raw)


@lru_cache(maxsize=200_000)
def _analyze_token(raw: str) -> tuple[str, ...]:
    wholes, parts = token_forms(raw)
    return wholes + parts


CJK_CACHED_CHARS = 8  # longer Chinese or Japanese runs are analysed each time, not cached


def _long_cjk(raw: str) -> bool:
    return len(raw) > CJK_CACHED_CHARS and not raw.isascii() and _CJK.search(raw) is not None


def token_forms(raw: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A token's whole-identifier forms (dotted, compact) and its word parts."""
    return _cjk_forms(raw) if _long_cjk(raw) else _token_forms_cached(raw)


@lru_cache(maxsize=200_000)
def _token_forms_cached(raw: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if raw.isascii() and raw.isalpha() and (raw.islower() or raw.isupper() or raw[1:].islower()):
        # one plain word (most tokens of prose): what _token_forms gives, faster
        w = raw.lower()
        if w in STOPWORDS:
            return (), ()
        return (), (_stem(w) if len(w) > 2 else w,)
    if not raw.isascii() and _CJK.search(raw):
        return _cjk_forms(raw)
    return _token_forms(raw)


# Han ideographs, kana: scripts written without spaces between words
_CJK = re.compile("[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def _cjk_forms(raw: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Chinese and Japanese runs as overlapping character pairs (中文内容 → 中文, 文内, 内容),
    so a word inside a run is found; a run of three or more is also kept whole. Other runs
    of the token as usual."""
    wholes: list[str] = []
    parts: list[str] = []
    at = 0
    for m in _CJK.finditer(raw):
        if m.start() > at:
            w, p = token_forms(raw[at : m.start()])
            wholes.extend(w)
            parts.extend(p)
        run = m.group(0)
        if len(run) > 2:
            wholes.append(run)
        parts.extend([run] if len(run) == 1 else [run[k : k + 2] for k in range(len(run) - 1)])
        at = m.end()
    if at < len(raw):
        w, p = token_forms(raw[at:])
        wholes.extend(w)
        parts.extend(p)
    return tuple(dict.fromkeys(wholes)), tuple(parts)


def _token_forms(raw: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    parts: list[str] = []
    segments = [c for c in re.split(r"\.|::|->", raw) if c]
    seg_compacts: list[str] = []
    for seg in segments:
        seg_parts: list[str] = []
        for chunk in seg.split("_"):
            if not chunk:
                continue
            plain = _unaccent(chunk)
            seg_parts.extend((_CAMEL.findall(plain) or [plain]) if plain.isascii() else [plain])
        if len(seg_parts) > 1 and len(segments) > 1:
            seg_compacts.append("".join(seg_parts).lower())
        parts.extend(seg_parts)
    words = [p.lower() for p in parts if p]
    wholes: list[str] = []
    compound = len(words) > 1
    if compound:
        whole = _fold(raw).replace("::", ".").replace("->", ".")
        if len(segments) > 1:
            wholes.append(whole)
        wholes.append("".join(w for w in _SPLIT.split(whole) if w))  # compact: maxconnections
        wholes.extend(seg_compacts)
    out: list[str] = []
    for w in words:
        if w in STOPWORDS and not compound:
            continue
        if len(w) == 1 and not w.isdigit() and compound:
            continue
        out.append(_stem(w) if w.isalpha() and len(w) > 2 else w)
    return tuple(wholes), tuple(out)


def analyze(text: str) -> list[str]:
    """All index terms of a text, in order."""
    return [t for raw in _tokens(_nfkc(text)) for t in analyze_token(raw)]


class _TokenMemo(dict[str, T]):
    """raw token → what ``make`` gives for it, remembered (bounded: a long-lived server
    indexes many texts; long Chinese or Japanese runs are not kept, they rarely repeat)."""

    def __init__(self, make: Callable[[str], T]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, raw: str) -> T:
        if len(self) >= 200_000:
            self.clear()
        value = self.make(raw)
        if not _long_cjk(raw):
            self[raw] = value
        return value


@lru_cache(maxsize=4)
def _joined_terms(max_term: int) -> _TokenMemo[str]:
    """A token's index terms, cut to ``max_term`` and joined by spaces ("" for none)."""
    return _TokenMemo(lambda raw: " ".join(t[:max_term] for t in analyze_token(raw)))


def analyze_joined(text: str, max_term: int) -> str:
    """``" ".join(t[:max_term] for t in analyze(text))``, several times faster (indexing)."""
    terms = _joined_terms(max_term)
    return " ".join(filter(None, map(terms.__getitem__, _tokens(_nfkc(text)))))


def _split_token(raw: str, max_term: int) -> tuple[str, str]:
    """A token's words and whole identifiers, and the parts of a compound identifier."""
    wholes, parts = token_forms(raw)
    if not wholes or (not raw.isascii() and _CJK.search(raw)):
        # a plain word is its own part; Chinese and Japanese pairs are the words themselves
        return " ".join(t[:max_term] for t in (*wholes, *parts)), ""
    return " ".join(t[:max_term] for t in wholes), " ".join(t[:max_term] for t in parts)


@lru_cache(maxsize=4)
def _split_terms(max_term: int) -> _TokenMemo[tuple[str, str]]:
    return _TokenMemo(lambda raw: _split_token(raw, max_term))


def analyze_split(text: str, max_term: int) -> tuple[str, str]:
    """A text's index terms in two space-joined strings: words and whole identifiers, and
    the parts of its compound identifiers (``MatchQuery`` → ``matchquery`` | ``match queri``),
    which the index weighs less (a type name is not the plain words it is made of)."""
    split = _split_terms(max_term)
    words: list[str] = []
    parts: list[str] = []
    for raw in _tokens(_nfkc(text)):
        w, p = split[raw]
        if w:
            words.append(w)
        if p:
            parts.append(p)
    return " ".join(words), " ".join(parts)


_CODEISH = re.compile(r"[`()\[\]{}=<>]|\w[._:]\w|\w(?:_|[a-z][A-Z])")
IDENTIFIER_QUERY_WORDS = 6  # a longer query is a question, whatever its words


def identifiers_only(text: str) -> bool:
    """Whether a query is only code names (``abandon_on_cancel``, ``httpx.get``,
    ``QueryClient setQueryData``): each of its at most six words reads as code."""
    words = text[:MAX_QUERY_CHARS].split()
    return 0 < len(words) <= IDENTIFIER_QUERY_WORDS and all(_CODEISH.search(w) for w in words)


# A pasted document is not a query: beyond these, more words only cost time.
MAX_QUERY_CHARS = 10_000
MAX_QUERY_TERMS = 64
WHOLE_WEIGHT = 0.8
PART_WEIGHT = 0.6


JOINED_WEIGHT = 0.5  # "time out" → "timeout", unless the index is known to hold it


def _compounds(words: Sequence[str]) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Each compound of two adjacent words ("time out" → ``timeout``) and the forms of it
    an index may hold (as is, stemmed)."""
    for a, b in itertools.pairwise(words):
        if not (a.isalpha() and b.isalpha() and len(a) > 1 and len(b) > 1):
            continue
        if _fold(a) in STOPWORDS or _fold(b) in STOPWORDS:
            continue
        if _CJK.search(a) or _CJK.search(b):  # those are already cut into character pairs
            continue
        joined = _fold(a + b)
        yield joined, tuple(dict.fromkeys((joined, _stem(joined))))


def compound_terms(text: str) -> list[str]:
    """Every term :func:`analyze_query` asks its ``known`` about for ``text``: an index can
    answer for all of them at once (one look-up, not one per term)."""
    words = _tokens(_nfkc(text[:MAX_QUERY_CHARS]))
    return list(dict.fromkeys(t for _, forms in _compounds(words) for t in forms))


def analyze_query(
    text: str,
    known: Callable[[str], bool] | None = None,
    *,
    whole_weight: float = WHOLE_WEIGHT,
    part_weight: float = PART_WEIGHT,
    joined_weight: float = JOINED_WEIGHT,
) -> list[tuple[str, float]]:
    """Distinct query terms with weights, in order; any string is accepted.

    An identifier's parts share its weight, so ``httpx.get`` counts about as much as
    one plain word instead of four. In a sentence-like query, function words go.

    Two adjacent words also ask for their compound ("time out" → ``timeout``, "base url"
    → ``baseurl``, the compact form of ``base_url``), at half a word's weight. ``known``
    says whether the index holds a term: a compound it holds counts as a whole word, in
    the form the index holds it ("data base" → ``databas``, stemmed). The two words keep
    their own weight: lowering it measured worse on API questions ("status code" is
    ``status_code`` and also a status and a code).
    """
    text = _nfkc(text[:MAX_QUERY_CHARS])
    words = _tokens(text)
    sentence = len(words) >= 4 and not all(_CODEISH.search(w) for w in words)
    weights: dict[str, float] = {}
    cjk: dict[str, float] = {}  # Chinese and Japanese terms: after the others (the 64 cut)
    for raw in words:
        terms = analyze_token(raw)
        if sentence and len(terms) == 1 and terms[0] in QUESTION_NOISE and not _CODEISH.search(raw):
            continue
        if not terms:
            continue
        if not raw.isascii() and _CJK.search(raw):
            # each character pair is a word of its own (1/√n: a long run does not drown the
            # rest of the question, nor fade to nothing); the whole run, when the text has it
            # as a run too (a heading), counts as a word
            wholes, parts = token_forms(raw)
            distinct = list(dict.fromkeys(parts))
            for term in wholes:
                cjk[term] = 1.0
            for term in distinct:
                cjk[term] = max(cjk.get(term, 0.0), 1.0 / math.sqrt(len(distinct)))
            continue
        n_whole = len(token_forms(raw)[0])
        for i, term in enumerate(terms):
            # the identifier itself counts most; its parts together about half a word
            w = (
                1.0
                if len(terms) == 1
                else (whole_weight if i < n_whole else part_weight / (len(terms) - n_whole))
            )
            weights[term] = max(weights.get(term, 0.0), w)
    # "time out" also asks for "timeout", "base url" for base_url / baseUrl (compact form)
    for joined, forms in _compounds(words):
        held = [t for t in forms if known(t)] if known else []
        if not held:
            weights.setdefault(joined, joined_weight)
            continue
        for term in held:
            weights[term] = 1.0
    for term, w in cjk.items():
        weights.setdefault(term, w)
    if not weights:  # a query of nothing but function words: search them after all
        for raw in words:
            for term in analyze_token(raw):
                weights.setdefault(term, 1.0)
    return list(weights.items())[:MAX_QUERY_TERMS]
