"""Evaluation harnesses users can run on their own corpus (`docmentor eval …`).

Question files are JSON Lines (the format, with an example: docs/evaluation.md):
``{"id", "query", "relevant": [{"path", "heading" | null, "grade": 1|2}], "expected_contains": [...]}``.

* search: document- and section-level MRR@10, Recall@k and nDCG@10 (needs ``relevant``);
  a section hit matches a labelled heading when it is that section, lies inside it, or
  contains it — the rules of ``shared/eval/evaluate.py``.
* api: where find_api ranks an expected API (``expected_api``): top-1, top-3, MRR.
* assemble: per question, the share of ``expected_contains`` strings found in the digest
  (case-insensitive, whitespace-normalised); a question passes at coverage ≥ 0.8.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from docmentor.errors import UsageError

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.library.service.results import FoundApis

PASS_COVERAGE = 0.8

Harness = Literal["search", "assemble", "api"]
#: what each harness needs of a question: its key (a non-empty value), and how an error names it
NEEDS: dict[Harness, tuple[str, str]] = {
    "search": ("relevant", '"relevant" labels'),
    "assemble": ("expected_contains", '"expected_contains"'),
    "api": ("expected_api", '"expected_api"'),
}


def asks(question: dict[str, Any], harness: Harness) -> bool:
    """Whether ``harness`` measures ``question`` (it has what the harness needs); the others are skipped."""
    return bool(question.get(NEEDS[harness][0]))


def load_questions(path: Path, *, harness: Harness | None = None) -> list[dict[str, Any]]:
    """Questions from a JSONL file; a clear error names the bad line. With ``harness``, only
    the questions it measures (:func:`asks`), and an error naming the file when there is none."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(
            f"{path} is not UTF-8 text", hint="give a JSONL file: one JSON object a line"
        ) from None
    out: list[dict[str, Any]] = []
    ids: dict[str, int] = {}  # a question's id → its line: results are reported by id
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{no}: not JSON: {exc.msg}") from None
        except RecursionError:
            raise UsageError(f"{path}:{no}: not JSON: nested too deeply") from None
        if not isinstance(q, dict):
            raise UsageError(
                f"{path}:{no}: each line is one JSON object, not {type(q).__name__}",
                hint='for example {"query": "set a timeout", "expected_api": "httpx.Timeout"}',
            )
        if not isinstance(q.get("query"), str) or not q["query"].strip():
            raise UsageError(f'{path}:{no}: each line needs a "query" string, not a blank one')
        problem = _label_problem(q)
        if problem is not None:
            raise UsageError(f"{path}:{no}: {problem[0]}", hint=problem[1])
        q.setdefault("id", str(no))
        first = ids.setdefault(str(q["id"]), no)
        if first != no:
            raise UsageError(
                f"{path}:{no}: the id {q['id']!r} is also line {first}'s",
                hint="give each question an id of its own (a line without one is named by its number)",
            )
        out.append(q)
    if not out:
        raise UsageError(f"{path}: no questions")
    if harness is None:
        return out
    asked = [q for q in out if asks(q, harness)]
    if not asked:
        raise UsageError(f"{path}: no question has {NEEDS[harness][1]}")
    return asked


_RELEVANT = 'for example "relevant": [{"path": "docs/x.md", "heading": "Usage", "grade": 2}]'


def _label_problem(question: dict[str, Any]) -> tuple[str, str] | None:
    """What is wrong with the shape of a question's labels (those it has), with an example
    of the right shape; None when nothing is."""
    relevant = question.get("relevant")
    if relevant is not None:
        if not isinstance(relevant, list):
            return '"relevant" must be a list of labels', _RELEVANT
        for label in relevant:
            if not isinstance(label, dict) or not isinstance(label.get("path"), str):
                return 'each "relevant" label needs a "path" string', _RELEVANT
            grade = label.get("grade", 1)
            if isinstance(grade, bool) or grade not in (0, 1, 2):
                return f'a label\'s "grade" is 0, 1 or 2, not {grade!r}', _RELEVANT
            if not isinstance(label.get("heading"), str | None):
                return f'a label\'s "heading" is a string or null, not {label["heading"]!r}', _RELEVANT
    contains = question.get("expected_contains")
    if contains is not None and (
        not isinstance(contains, list) or not all(isinstance(s, str) for s in contains)
    ):
        return (
            '"expected_contains" must be a list of strings',
            'for example "expected_contains": ["timeout="]',
        )
    api = question.get("expected_api")
    if (
        api is not None
        and not isinstance(api, str)
        and (not isinstance(api, list) or not all(isinstance(s, str) for s in api))
    ):
        return '"expected_api" must be an API id or a list of them', 'for example "expected_api": "httpx.get"'
    return None


def align_labels(
    questions: list[dict[str, Any]], indexed: set[str]
) -> tuple[list[dict[str, Any]], dict[str, str], list[str]]:
    """Labels written relative to another folder than the indexed source's, made to match.

    A labelled path that is not indexed but ends with an indexed path (``docs/advanced/x.md``
    for a source added at ``docs/``: ``advanced/x.md``) is renamed to it, when the part it
    drops (``docs/``) is the same for every renamed label. A leading ``/`` (an llms.txt
    source's URL paths) does not count. Returns the questions with renamed labels, the
    renames (new → labelled) and the labelled paths that match nothing (scored as misses)."""
    by_bare = {path.strip("/"): path for path in indexed}

    def guess(path: str) -> tuple[str, str] | None:
        """(indexed path, the folder part dropped) for a label, or None."""
        parts = path.strip("/").split("/")
        for k in range(len(parts)):  # the label itself, then ever shorter tails of it
            found = by_bare.get("/".join(parts[k:]))
            if found is not None:
                return found, "/".join(parts[:k])
        return None

    labelled = list(
        dict.fromkeys(str(lab.get("path", "")) for q in questions for lab in q.get("relevant") or [])
    )
    guesses = {p: guess(p) for p in labelled}
    dropped = Counter(g[1] for g in guesses.values() if g is not None and g[1])
    common = dropped.most_common(1)[0][0] if dropped else ""
    renamed: dict[str, str] = {}
    unmatched: list[str] = []
    target_of: dict[str, str] = {}
    for path, g in guesses.items():
        if g is None or (g[1] and g[1] != common):
            unmatched.append(path)
            continue
        target_of[path] = g[0]
        if g[0] != path:
            renamed[g[0]] = path
    out = [
        {
            **q,
            "relevant": [
                {**lab, "path": target_of.get(str(lab.get("path", "")), lab.get("path"))}
                for lab in q.get("relevant") or []
            ],
        }
        for q in questions
    ]
    return out, renamed, unmatched


def _norm(text: str | None) -> str:
    return " ".join((text or "").lower().replace("`", "").strip("# ").split())


def _dcg(gains: Iterable[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def _section_match(
    hit: dict[str, Any], label: dict[str, Any], read_lines: Callable[[str], list[str]]
) -> bool:
    if hit.get("path") != label.get("path"):
        return False
    want = _norm(label.get("heading"))
    if not want:
        return True
    if _norm(hit.get("heading")) == want or want in {_norm(h) for h in hit.get("heading_path") or []}:
        return True
    start, end = hit.get("line_start"), hit.get("line_end")
    if isinstance(start, int) and isinstance(end, int):
        lines = read_lines(str(hit["path"]))[max(start - 1, 0) : max(end, start)]
        return want in {_norm(ln.lstrip().lstrip("#")) for ln in lines if ln.lstrip().startswith("#")}
    return False


@dataclass
class SearchEval:
    rows: list[dict[str, Any]] = field(default_factory=list)

    def mean(self, level: str, key: str) -> float:
        return statistics.fmean(r[level][key] for r in self.rows) if self.rows else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "questions": len(self.rows),
            "document": {k: round(self.mean("doc", k), 4) for k in ("mrr", "r@1", "r@5", "r@10", "ndcg")},
            "section": {k: round(self.mean("section", k), 4) for k in ("mrr", "r@5", "ndcg")},
        }


def score_search(
    q: dict[str, Any], hits: list[dict[str, Any]], read_lines: Callable[[str], list[str]]
) -> dict[str, Any]:
    """Document- and section-level metrics of one ranked hit list (best first)."""
    labels = [lab for lab in q.get("relevant") or [] if isinstance(lab, dict) and "path" in lab]
    doc_grade: dict[str, int] = {}
    for lab in labels:
        doc_grade[lab["path"]] = max(doc_grade.get(lab["path"], 0), int(lab.get("grade", 1)))
    docs: list[str] = []
    for h in hits:
        if h.get("path") not in docs:
            docs.append(str(h.get("path")))
    # the answers: the grade-2 documents, or every relevant one (grade 1) when none is graded
    # 2; a grade-0 label says a document is not relevant (a tour: it counted as an answer)
    answers = {p for p, g in doc_grade.items() if g == 2} or {p for p, g in doc_grade.items() if g >= 1}
    first = next((i + 1 for i, p in enumerate(docs[:10]) if p in answers), None)
    ideal = sorted((2**g - 1 for g in doc_grade.values()), reverse=True)[:10]
    best = _dcg(ideal)  # 0 when every label is grade 0 (a tour: a division by zero)
    doc = {
        "mrr": 1 / first if first else 0.0,
        **{f"r@{k}": len(answers & set(docs[:k])) / len(answers) if answers else 0.0 for k in (1, 5, 10)},
        "ndcg": _dcg(2 ** doc_grade.get(p, 0) - 1 for p in docs[:10]) / best if best else 0.0,
    }
    # the answers are the grade-2 labels, or every relevant label when none is graded 2 (as above)
    answer_ids = [i for i, lab in enumerate(labels) if int(lab.get("grade", 1)) == 2] or [
        i for i, lab in enumerate(labels) if int(lab.get("grade", 1)) >= 1
    ]
    used: set[int] = set()
    found_at: dict[int, int] = {}
    sec_first, gains = None, []
    for rank, h in enumerate(hits[:10], 1):
        gain = 0
        for i, lab in enumerate(labels):
            if i not in used and _section_match(h, lab, read_lines):
                used.add(i)
                gain = 2 ** int(lab.get("grade", 1)) - 1
                if i in answer_ids:
                    found_at[i] = rank
                    sec_first = sec_first or rank
                break
        gains.append(gain)
    sec_ideal = sorted((2 ** int(lab.get("grade", 1)) - 1 for lab in labels), reverse=True)[:10]
    sec_best = _dcg(sec_ideal)
    sec = {
        "mrr": 1 / sec_first if sec_first else 0.0,
        "r@5": len([i for i in answer_ids if found_at.get(i, 99) <= 5]) / len(answer_ids)
        if answer_ids
        else 0.0,
        "ndcg": _dcg(gains) / sec_best if sec_best else 0.0,
    }
    return {"id": q.get("id"), "query": q["query"], "doc": doc, "section": sec, "top": docs[:3]}


def distilled_text(digest: Any) -> str:
    """What a digest holds of the documentation: its sections' headings and texts, not its
    header and usage note (they repeat the question). What ``eval assemble`` checks."""
    return "\n\n".join(f"{s.candidate.heading}\n{s.text}" for s in digest.sections)


def coverage(text: str, expected: list[str]) -> tuple[float, list[str]]:
    """Share of expected strings found in ``text`` (case-insensitive, whitespace-normalised)."""
    hay = " ".join(text.lower().split())
    missing = [e for e in expected if " ".join(e.lower().split()) not in hay]
    return ((len(expected) - len(missing)) / len(expected) if expected else 1.0), missing


class FindsApis(Protocol):
    """What `evaluate_api` asks: ``LibraryKnowledge.find_api``'s signature and result."""

    def find_api(self, query: str, *, max_results: int = 5, library: str | None = None) -> FoundApis: ...


@dataclass(frozen=True, slots=True)
class ApiQuestion:
    """One question of an API lookup run: the rank of the first expected API (None: not in
    the results asked for) and the first three ids returned."""

    id: str | int  # as the question file gives it (a line number when it gives none)
    query: str
    rank: int | None
    top: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "query": self.query, "rank": self.rank, "top": list(self.top)}


@dataclass(frozen=True, slots=True)
class ApiEval:
    """find_api's quality on labelled questions: top-1, top-3 and MRR (unrounded) over
    ``limit`` results per question."""

    questions: tuple[ApiQuestion, ...]
    limit: int
    top1: float
    top3: float
    mrr: float

    @property
    def misses(self) -> tuple[ApiQuestion, ...]:
        """The questions whose first expected API is not ranked first."""
        return tuple(q for q in self.questions if q.rank != 1)

    def summary(self) -> dict[str, Any]:
        """The figures as ``docmentor eval api`` prints them (rounded to 4 places)."""
        return {
            "questions": len(self.questions),
            "limit": self.limit,
            "top1": round(self.top1, 4),
            "top3": round(self.top3, 4),
            "mrr": round(self.mrr, 4),
        }


MAX_API_RESULTS = 50  # find_api's own limit


def expected_apis(expected: str | Iterable[str]) -> frozenset[str]:
    """A question's ``expected_api``: one id, or a list of ids any of which is a hit."""
    return frozenset({expected} if isinstance(expected, str) else expected)


def api_rank(results: Iterable[dict[str, Any]], expected: str | Iterable[str]) -> int | None:
    """The rank of the first result whose id or an alias is expected (None: none is)."""
    want = expected_apis(expected)
    return next((r["rank"] for r in results if want & {r["api_id"], *r.get("aliases", ())}), None)


def evaluate_api(
    knowledge: FindsApis, questions: Iterable[dict[str, Any]], *, limit: int = 10, library: str | None = None
) -> ApiEval:
    """Ask find_api each question (``{"id", "query", "expected_api"}``; questions without
    ``expected_api`` are skipped) for ``limit`` results and score where an expected API
    ranks: top-1, top-3, MRR (a rank beyond ``limit`` counts as not found)."""
    if not 1 <= limit <= MAX_API_RESULTS:
        raise UsageError(f"limit must be between 1 and {MAX_API_RESULTS}, got {limit}")
    rows: list[ApiQuestion] = []
    for q in questions:
        if not asks(q, "api"):
            continue
        found = knowledge.find_api(q["query"], max_results=limit, library=library)
        rows.append(
            ApiQuestion(
                id=q["id"],
                query=q["query"],
                rank=api_rank((r.to_dict() for r in found.results), q["expected_api"]),
                top=tuple(r.api_id for r in found.results[:3]),
            )
        )
    if not rows:
        raise UsageError('no question has "expected_api"')
    n = len(rows)
    return ApiEval(
        questions=tuple(rows),
        limit=limit,
        top1=sum(1 for r in rows if r.rank == 1) / n,
        top3=sum(1 for r in rows if r.rank and r.rank <= 3) / n,
        mrr=sum(1 / r.rank for r in rows if r.rank) / n,
    )


# -- search and assemble over an index -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Labels:
    """Questions' labels checked against the index: the questions with labels renamed to
    the indexed paths (:func:`align_labels`), the renames (indexed → labelled), the
    labelled paths that match nothing (scored as misses) and how many paths are labelled."""

    questions: tuple[dict[str, Any], ...]
    renamed: dict[str, str]
    unmatched: tuple[str, ...]
    labelled: int
    #: labelled ``path#heading`` whose document has no section of that heading (renamed, or a
    #: typo): each such label can only miss
    headings_missing: tuple[str, ...] = ()

    @property
    def none_indexed(self) -> bool:
        return bool(self.labelled) and len(self.unmatched) == self.labelled


def check_labels(
    engine: Docmentor, questions: Iterable[dict[str, Any]], *, source: str | None = None
) -> Labels:
    """The questions with ``relevant`` labels, aligned with the documents of ``source`` (all
    sources when None; an unknown source is a :class:`NotFoundError`)."""
    engine.check_source(source)  # before any label is looked up
    names = [r["name"] for r in engine.sources() if source is None or r["name"] == source]
    indexed = {path for name in names for path in engine.store.documents(name)}
    aligned, renamed, unmatched = align_labels([q for q in questions if asks(q, "search")], indexed)
    labelled = {str(lab.get("path")) for q in aligned for lab in q["relevant"]}
    return Labels(
        tuple(aligned), renamed, tuple(unmatched), len(labelled), _missing_headings(engine, names, aligned)
    )


# a Markdown link's words (`[text](url)` → `text`): one class per part, linear
_LINK = re.compile(r"\[([^\[\]\n]*)\]\([^()\n]*\)")


def _unlinked(text: str) -> str:
    return _LINK.sub(r"\1", text) if "](" in text else text


def _missing_headings(
    engine: Docmentor, names: list[str], questions: list[dict[str, Any]]
) -> tuple[str, ...]:
    """``path#heading`` of the labels whose indexed document has no heading so named (any
    level; compared as the scoring compares them)."""
    headings: dict[str, set[str]] = {}
    missing: list[str] = []
    stored = [engine.store.documents(name) for name in names]
    for q in questions:
        for lab in q.get("relevant") or []:
            path, want = str(lab.get("path")), _norm(lab.get("heading"))
            if not want:
                continue
            if path not in headings:
                docs = [d for held in stored if (d := held.get(path)) is not None]
                headings[path] = {
                    _norm(str(r["heading"])) for d in docs for r in engine.store.sections_of(d.id)
                }
            # as the stored headings read (a link's words, not its markup), as the scoring
            # also matches the file's own heading lines
            if (
                headings[path]
                and want not in headings[path]
                and _norm(_unlinked(str(lab.get("heading")))) not in headings[path]
            ):
                missing.append(f"{path}#{lab.get('heading')}")
    return tuple(dict.fromkeys(missing))


@dataclass(frozen=True, slots=True)
class SearchRun:
    """Per-question search metrics (:func:`score_search` rows) and their summary."""

    questions: tuple[dict[str, Any], ...]

    def summary(self) -> dict[str, Any]:
        return SearchEval(rows=list(self.questions)).summary()


def source_folder(engine: Docmentor, source: str | None) -> Path | None:
    """The folder ``source`` was added from (with no source: the one folder source, if
    there is exactly one); None otherwise."""
    rows = [r for r in engine.sources() if source is None or r["name"] == source]
    folders = [Path(r["target"]) for r in rows if r["kind"] == "folder"]
    return folders[0] if len(folders) == 1 else None


def evaluate_search(
    engine: Docmentor, labels: Labels, *, source: str | None = None, root: Path | None = None
) -> SearchRun:
    """Search each question (10 results, ``source`` only when given) and score the hits
    against its labels; section labels are checked against the files in ``root`` (default:
    :func:`source_folder`)."""
    if root is not None and not root.is_dir():  # each section label would silently miss
        raise UsageError(f"root {root} is not a folder", hint="give the corpus folder", arguments=("root",))
    folder = root or source_folder(engine, source)
    cache: dict[str, list[str]] = {}

    def read_lines(path: str) -> list[str]:
        if path not in cache:
            cache[path] = []
            for name in dict.fromkeys((path, labels.renamed.get(path, path))):
                try:
                    if folder:
                        text = (folder / name).read_text(encoding="utf-8", errors="replace")
                        cache[path] = text.splitlines()
                        break
                except OSError:
                    continue
        return cache[path]

    rows = []
    for q in labels.questions:
        hits = [h.to_dict() for h in engine.search(q["query"], source=source, limit=10)]
        rows.append(score_search(q, hits, read_lines))
    return SearchRun(tuple(rows))


@dataclass(frozen=True, slots=True)
class AssembleQuestion:
    id: str | int
    query: str
    coverage: float  # rounded to 4 places
    passed: bool  # coverage >= PASS_COVERAGE
    missing: tuple[str, ...]
    tokens: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "query": self.query,
            "coverage": self.coverage,
            "passed": self.passed,
            "missing": list(self.missing),
            "tokens": self.tokens,
        }


@dataclass(frozen=True, slots=True)
class AssembleEval:
    questions: tuple[AssembleQuestion, ...]
    max_tokens: int

    @property
    def passed(self) -> int:
        return sum(q.passed for q in self.questions)

    def summary(self) -> dict[str, Any]:
        n = len(self.questions)
        return {
            "questions": n,
            "passed": self.passed,
            "pass_rate": round(self.passed / n, 4),
            "mean_coverage": round(sum(q.coverage for q in self.questions) / n, 4),
            "max_tokens": self.max_tokens,
        }


def evaluate_assemble(
    engine: Docmentor,
    questions: Iterable[dict[str, Any]],
    *,
    max_tokens: int = 8000,
    source: str | None = None,
    depth: int = 1,
) -> AssembleEval:
    """Assemble a digest for each question with ``expected_contains`` (the others are
    skipped) and measure the share of those strings it holds."""
    from docmentor.assemble import assemble

    rows = []
    for q in questions:
        if not asks(q, "assemble"):
            continue
        digest = assemble(
            engine, q["query"], max_tokens=max_tokens, source=source, depth=depth, allow_empty=True
        )
        # the documentation the digest holds, not its header and usage note, which repeat the
        # question (a tour: a string of the question alone always passed)
        cov, missing = coverage(distilled_text(digest), list(q["expected_contains"]))
        rows.append(
            AssembleQuestion(
                id=q["id"],
                query=q["query"],
                coverage=round(cov, 4),
                passed=cov >= PASS_COVERAGE,
                missing=tuple(missing),
                tokens=digest.actual_tokens,
            )
        )
    if not rows:
        raise UsageError('no question has "expected_contains"')
    return AssembleEval(tuple(rows), max_tokens)


# the figures a harness can be held to (``docmentor eval … --min NAME=VALUE``), as its summary
# names them; a search's bare names are the document-level ones
GATED: dict[Harness, tuple[str, ...]] = {
    "search": (
        "mrr", "r@1", "r@5", "r@10", "ndcg",
        "document.mrr", "document.r@1", "document.r@5", "document.r@10", "document.ndcg",
        "section.mrr", "section.r@5", "section.ndcg",
    ),
    "assemble": ("pass_rate", "mean_coverage"),
    "api": ("top1", "top3", "mrr"),
}  # fmt: skip


def parse_minimums(values: Iterable[str], harness: Harness) -> dict[str, float]:
    """``NAME=VALUE`` minimums (``mrr=0.8``, ``section.r@5=0.9``) for ``harness``'s figures;
    a UsageError naming the known figures for a name it has not, or a value that is no number
    from 0 to 1."""
    known = GATED[harness]
    out: dict[str, float] = {}
    for value in values:
        name, sep, number = value.partition("=")
        name = name.strip().lower()
        if not sep or not name:
            raise UsageError(f"--min {value!r}: give NAME=VALUE", hint=f"for example --min {known[0]}=0.8")
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            raise UsageError(
                f"--min: {harness} has no figure {name!r}"
                + (f"; did you mean {close[0]!r}?" if close else ""),
                hint=f"known: {', '.join(known)}",
            )
        try:
            floor = float(number)
        except ValueError:
            floor = -1.0
        if not 0.0 <= floor <= 1.0:
            raise UsageError(f"--min {value!r}: the value is a number from 0 to 1")
        out[name] = floor
    return out


def below_minimums(summary: Mapping[str, Any], minimums: Mapping[str, float]) -> list[str]:
    """The figures of a harness's ``summary`` below their ``minimums`` (:func:`parse_minimums`),
    each as ``name figure < minimum``; empty when every one is met."""
    out = []
    for name, floor in minimums.items():
        part, _, key = name.rpartition(".")
        table = summary[part] if part else summary if key in summary else summary["document"]
        figure = float(table[key])
        if figure < floor:
            out.append(f"{name} {figure:.4f} < {floor:g}")
    return out
