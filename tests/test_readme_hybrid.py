"""find_api's hybrid retrieval: lexical, documentation sections and embeddings, fused.

On the fixture library (tests/fixtures/readme_lib), generated with the real embedding model.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest

from docmentor.embeddings import MODEL_ID, Embedder, EmbeddingUnavailable
from docmentor.engine import Docmentor
from docmentor.errors import StoreError
from docmentor.library import generate
from docmentor.library.find.api_text import embedding_text, passage_texts
from docmentor.library.find.config import DEFAULT
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.knowledge.kb_files import load_kb
from docmentor.library.knowledge.kb_index import load_entries
from docmentor.library.models import ApiEntry, ApiParameter, Example
from docmentor.library.service.service import LibraryKnowledge
from docmentor.store.kb import load_vectors

LIB = Path(__file__).parent / "fixtures" / "readme_lib"
SIGNALS = {"lexical", "sections", "semantic"}
PARAPHRASE = "terminate when finished"  # no word in common with Database.close ("Close the database.")


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    root = tmp_path / "lib"
    shutil.copytree(LIB, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _generate(
    tmp_path: Path,
    lib: Path,
    name: str,
    *,
    embeddings: bool = True,
    progress: Callable[[int, int, str], None] | None = None,
) -> Docmentor:
    eng = Docmentor(tmp_path / name, embeddings=embeddings)  # the env of the tests says 0
    generate(
        eng,
        library="minidb",
        docs_path=lib / "docs",
        out=tmp_path / f"{name}-out",
        search_paths=[lib],
        embeddings=embeddings,
        progress=progress,
    )
    return eng


@pytest.fixture
def engine(tmp_path: Path, lib: Path) -> Iterator[Docmentor]:
    eng = _generate(tmp_path, lib, "with")
    yield eng
    eng.close()


def test_every_result_shows_its_rank_in_each_ranking(engine: Docmentor, tmp_path: Path) -> None:
    data = (
        LibraryKnowledge(engine, cwd=tmp_path).find_api("insert rows into a table", max_results=5).to_dict()
    )
    results = data["results"]
    assert results[0]["api_id"] == "minidb.core.Database.insert"
    assert results[0]["signals"] == {
        "lexical": 1,
        "sections": results[0]["signals"]["sections"],
        "semantic": 1,
    }
    for r in results:
        assert set(r["signals"]) == SIGNALS
        assert any(r["signals"].values())  # every result comes from at least one ranking
    assert [r["relevance"] for r in results] == sorted((r["relevance"] for r in results), reverse=True)
    assert results[0]["relevance"] == 1.0


def test_a_paraphrase_is_found_by_meaning(engine: Docmentor, tmp_path: Path) -> None:
    (hit, *_) = LibraryKnowledge(engine, cwd=tmp_path).find_api(PARAPHRASE).to_dict()["results"]
    assert hit["api_id"] == "minidb.core.Database.close"
    assert hit["signals"] == {"lexical": None, "sections": None, "semantic": 1}
    # "shut" is no API's word, but its WordNet synonym "close" is: found by words too
    (hit, *_) = (
        LibraryKnowledge(engine, cwd=tmp_path).find_api("shut down when finished").to_dict()["results"]
    )
    assert hit["api_id"] == "minidb.core.Database.close"
    assert hit["signals"]["lexical"] == 1 and hit["signals"]["semantic"] == 1
    assert hit["signals"]["sections"] is not None  # the section search is asked "close" too


def test_nonsense_finds_nothing(engine: Docmentor, tmp_path: Path) -> None:
    assert LibraryKnowledge(engine, cwd=tmp_path).find_api("zzzqqq xkcd").to_dict()["results"] == []


def test_a_section_that_explains_the_task_credits_its_api(engine: Docmentor, tmp_path: Path) -> None:
    index = LibraryKnowledge(engine, cwd=tmp_path).index()
    ranking = index._sections("narrow the rows of one table", None)
    ids = [index.entries[i][1].api_id for i, _ in ranking]
    assert "minidb.query.Query" in ids[:3]  # querying.md: "A `Query` narrows the rows of one table"
    # relative to the best section, × the weight of how it names the API (a code span: uses)
    assert all(0.0 < s <= 1.0 for _, s in ranking) and ranking[0][1] == DEFAULT.uses_weight


def test_vectors_are_written_registered_and_loaded(engine: Docmentor, tmp_path: Path) -> None:
    kb = load_kb(tmp_path / "with-out" / "knowledge_base")
    assert kb.vectors is not None and kb.vectors.model == MODEL_ID
    assert (tmp_path / "with-out" / "knowledge_base" / "embeddings" / "api_embeddings.npy").is_file()
    assert kb.metadata.settings["embeddings"] == MODEL_ID
    stored = load_vectors(engine.store, "minidb")
    assert stored is not None and stored.api_ids == kb.vectors.api_ids
    assert np.array_equal(stored.matrix, kb.vectors.matrix)
    ids = [e.api_id for e in load_entries(engine.store, "minidb")]
    # one row per API first, then docstring passages (connect has a summary and two parameters)
    assert stored.primary == kb.vectors.primary == len(ids) and sorted(stored.api_ids[: len(ids)]) == sorted(
        ids
    )
    kb_connect = next(e for e in kb.entries if e.api_id == "minidb.core.connect")
    assert stored.api_ids[len(ids) :].count("minidb.core.connect") == len(passage_texts(kb_connect)) >= 3
    assert set(stored.api_ids) == set(ids)
    assert np.allclose(np.linalg.norm(stored.matrix, axis=1), 1.0, atol=1e-5)


def test_vectors_registered_by_an_earlier_version_still_load(engine: Docmentor) -> None:
    import json

    with sqlite3.connect(engine.store.path) as db:
        (raw,) = db.execute("SELECT api_ids FROM kb_vectors").fetchone()
        rows = json.loads(raw)["rows"]
        data = db.execute("SELECT data FROM kb_vectors").fetchone()[0]
        primary = json.loads(raw)["primary"]
        # the first format: a plain list of ids, one row each
        db.execute(
            "UPDATE kb_vectors SET api_ids = ?, data = ?",
            (json.dumps(rows[:primary]), data[: primary * 384 * 4]),
        )
    old = load_vectors(engine.store, "minidb")
    assert old is not None and old.primary == len(old.api_ids) == primary


def test_without_embeddings_find_api_ranks_lexically(tmp_path: Path, lib: Path) -> None:
    eng = _generate(tmp_path, lib, "without", embeddings=False)
    try:
        assert not (tmp_path / "without-out" / "knowledge_base" / "embeddings").exists()
        assert load_vectors(eng.store, "minidb") is None
        knowledge = LibraryKnowledge(eng, cwd=tmp_path)
        results = knowledge.find_api("insert rows into a table").to_dict()["results"]
        assert results[0]["api_id"] == "minidb.core.Database.insert"
        assert all(set(r["signals"]) == {"lexical", "sections"} for r in results)
        assert knowledge.find_api(PARAPHRASE).to_dict()["results"] == []  # meaning alone is out of reach
    finally:
        eng.close()


def test_vectors_of_another_model_are_not_used(engine: Docmentor, tmp_path: Path) -> None:
    with sqlite3.connect(engine.store.path) as db:
        db.execute("UPDATE kb_vectors SET model = 'some-other-model'")
        db.execute("UPDATE knowledge_bases SET generation = generation + 1")  # readers reload
    results = LibraryKnowledge(engine, cwd=tmp_path).find_api("insert rows into a table").to_dict()["results"]
    assert results and all("semantic" not in r["signals"] for r in results)


def test_an_embedder_that_fails_at_query_time_degrades_to_lexical(engine: Docmentor, tmp_path: Path) -> None:
    knowledge = LibraryKnowledge(engine, cwd=tmp_path)
    index = knowledge.index()

    def broken() -> Embedder:
        raise EmbeddingUnavailable("the embedding model cannot be loaded: gone")

    index.embedder = broken
    results = knowledge.find_api("insert rows into a table").to_dict()["results"]
    assert results[0]["api_id"] == "minidb.core.Database.insert"
    assert index.semantic_error and "gone" in index.semantic_error
    assert not index.semantic  # later calls do not retry


@pytest.mark.parametrize("damage", ["truncate", "shape", "pickle"])
def test_a_damaged_embeddings_file_is_a_clear_error(engine: Docmentor, tmp_path: Path, damage: str) -> None:
    kb_dir = tmp_path / "with-out" / "knowledge_base"
    npy = kb_dir / "embeddings" / "api_embeddings.npy"
    if damage == "truncate":
        npy.write_bytes(npy.read_bytes()[:100])
    elif damage == "shape":
        np.save(npy, np.zeros((3, 7), dtype=np.float32))
    else:
        np.save(npy, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(StoreError, match=r"api_embeddings\.npy") as info:
        load_kb(kb_dir)
    assert info.value.hint and "regenerate" in info.value.hint


def test_docstring_passages() -> None:
    from docmentor.library.models import ApiEntry, ApiParameter

    entry = ApiEntry(
        api_id="pkg._api.request", aliases=["pkg.request"], kind="function", name="request",
        docstring="Sends an HTTP request.\n\n**Parameters:**\n\n* **method** - HTTP method for the new request: GET, POST.\n"
        "* **url** - the URL\n\nShort.",
        parameters=[ApiParameter(name="timeout", description="The timeout configuration to use when sending.")],
    )  # fmt: skip
    assert passage_texts(entry) == [
        "pkg.request: **method** - HTTP method for the new request: GET, POST.",
        "pkg.request: timeout: The timeout configuration to use when sending.",
    ]
    # a parameter read from that list (api_python) is not embedded a second time
    read = ApiParameter(name="method", description="HTTP method for the new request: GET, POST.")
    assert passage_texts(entry.model_copy(update={"parameters": [read, *entry.parameters]})) == passage_texts(
        entry
    )
    assert passage_texts(entry.model_copy(update={"kind": "module"})) == []
    # markup paragraphs are not passages: admonitions with their bodies, directives, lone links
    marked = entry.model_copy(
        update={
            "parameters": [],
            "docstring": '!!! abstract "Usage Documentation"\n    [Requests](../concepts/requests.md)\n\n'
            ".. versionadded:: 1.2 with a long enough explanation\n\n[Requests](../concepts/requests.md)\n\n"
            "Sends an HTTP request and returns the response it got back.",
        }
    )
    assert passage_texts(marked) == [
        "pkg.request: Sends an HTTP request and returns the response it got back."
    ]


def test_catalog_fields_of_the_plan_are_filled(engine: Docmentor) -> None:
    by_id = {e.api_id: e for e in load_entries(engine.store, "minidb")}
    insert = by_id["minidb.core.Database.insert"]
    assert "minidb.core.connect" in insert.related_apis and insert.tags
    assert insert.search_keywords[:3] == ["insert", "rows", "table"]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("kb_entries", "API catalog of 'minidb' is invalid"),
        ("kb_examples", "examples of 'minidb' are invalid"),
    ],
)
def test_damaged_records_in_the_index_are_a_clear_error(engine: Docmentor, table: str, message: str) -> None:
    from docmentor.library.knowledge.kb_index import load_examples

    with sqlite3.connect(engine.store.path) as db:
        db.execute(f"UPDATE {table} SET data = '{{}}'")
    with pytest.raises(StoreError, match=message) as info:
        (load_entries if table == "kb_entries" else load_examples)(engine.store, "minidb")
    assert info.value.hint == "regenerate it: docmentor readme-llm generate --library minidb"


def test_deprecated_apis_rank_after_what_replaces_them_and_leave_readme_llm() -> None:
    from docmentor.library.find.config import DEFAULT
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.knowledge.importance import score_importance
    from docmentor.library.knowledge.readme import ranked_entries
    from docmentor.library.models import ApiEntry

    old = ApiEntry(
        api_id="pkg.dict", aliases=[], kind="function", name="dict",
        description="Convert the model to a dict. Convert the model to a python dict of fields.",
        deprecated="use model_dump instead",
    )  # fmt: skip
    new = ApiEntry(
        api_id="pkg.model_dump", kind="function", name="model_dump", description="Dump the model to a dict."
    )
    # the deprecated one matches the task better, word for word
    index = ApiIndex({"pkg": ([old, new], [])})
    hits = index.find("convert the model to a python dict", limit=2)
    assert [h.entry.api_id for h in hits] == ["pkg.model_dump", "pkg.dict"]
    assert (
        hits[1].to_dict(2)["deprecated"] == "use model_dump instead"
        and hits[0].to_dict(1)["deprecated"] is None
    )
    # without the mark it would have come first
    plain = ApiIndex({"pkg": ([old.model_copy(update={"deprecated": None}), new], [])})
    assert plain.find("convert the model to a python dict", limit=1)[0].entry.api_id == "pkg.dict"
    # the replacement its reason names takes its place, even when the task's words miss it
    other = ApiEntry(
        api_id="pkg.serialize", kind="function", name="serialize", description="Walk the fields."
    )
    moved = ApiIndex({"pkg": ([old.model_copy(update={"deprecated": "Use `serialize()`."}), new, other], [])})
    found = [h.entry.api_id for h in moved.find("convert the model to a python dict", limit=3)]
    assert found[:2] == ["pkg.serialize", "pkg.dict"]
    # no replacement named: a fifth off its score, so an equally good current API comes first
    same = new.model_copy(update={"description": old.description, "name": "dict_", "api_id": "pkg.dict_"})
    vague = ApiIndex({"pkg": ([old.model_copy(update={"deprecated": "deprecated"}), same], [])})
    ranked = vague.find("convert the model to a python dict", limit=2)
    assert [h.entry.api_id for h in ranked] == ["pkg.dict_", "pkg.dict"]
    assert ranked[1].score == pytest.approx(0.8, abs=0.05)

    twin = old.model_copy(update={"deprecated": None, "api_id": "pkg.dict2", "name": "dict2"})
    score_importance([old, twin, new], [], {}, package="pkg")
    assert old.importance_score == pytest.approx(twin.importance_score * DEFAULT.deprecated_share, abs=1e-3)
    # a config passed in is the one scored with: a deprecated API keeping all of its score
    score_importance([old, twin, new], [], {}, package="pkg", config=DEFAULT.replace(deprecated_share=1.0))
    assert old.importance_score == pytest.approx(twin.importance_score, abs=1e-3)
    score_importance([old, twin, new], [], {}, package="pkg")
    assert [e.api_id for e in ranked_entries([old, twin, new])] == ["pkg.dict2", "pkg.model_dump"]


def test_a_deprecations_replacement_is_what_it_says_to_use_not_a_same_named_copy() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry

    old = ApiEntry(
        api_id="pkg.tools.parse_as", kind="function", name="parse_as", description="Parse data as a type.",
        deprecated="`parse_as` is deprecated. Use `Adapter.validate` instead.",
    )  # fmt: skip
    legacy = ApiEntry(api_id="pkg.v1.tools.parse_as", kind="function", name="parse_as", description="Legacy.")
    adapter = ApiEntry(api_id="pkg.Adapter", kind="class", name="Adapter", description="Types.")
    validate = ApiEntry(
        api_id="pkg.Adapter.validate",
        kind="method",
        name="validate",
        parent="pkg.Adapter",
        description="Check.",
    )
    index = ApiIndex({"pkg": ([old, legacy, adapter, validate], [])})
    hits = [h.entry.api_id for h in index.find("parse data as a type", limit=4)]
    assert hits.index("pkg.Adapter.validate") + 1 == hits.index("pkg.tools.parse_as")


def test_examples_that_use_deprecated_apis_come_after_current_ones() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.knowledge.readme import best_example
    from docmentor.library.models import ApiEntry, Example

    old = ApiEntry(api_id="pkg.t.old_index", kind="function", name="old_index", deprecated="Use `index`.")
    new = ApiEntry(api_id="pkg.t.index", kind="function", name="index")
    table = ApiEntry(api_id="pkg.t.open", kind="function", name="open")

    def ex(i: int, code: str, apis: list[str]) -> Example:
        return Example(
            example_id=f"e{i}", title="Index a column", code=code, language="python", source="d", path="p.md",
            line=i, apis_used=apis, complete=True,
        )  # fmt: skip

    dated = ex(1, "t = open()\nt.old_index('c')\n", ["pkg.t.open", "pkg.t.old_index"])
    current = ex(2, "t = open()\nt.index('c')\nprint(t)\n", ["pkg.t.open", "pkg.t.index"])
    index = ApiIndex({"pkg": ([old, new, table], [dated, current])})
    found = index.examples_for("index a column", apis=["pkg.t.open"], limit=2)
    assert [e.example_id for _, e, _ in found] == ["e2", "e1"]  # the shorter one loses its lead
    assert index.deprecated_in("pkg", dated) == {"pkg.t.old_index": "Use `index`."}
    assert index.deprecated_in("pkg", current) == {}
    # README.LLM shows open() with the current example, though the other is shorter
    assert best_example(table, [dated, current], validated=False, deprecated={"pkg.t.old_index"}) is current
    assert best_example(table, [dated, current], validated=False) is dated


def test_an_api_is_scored_by_its_best_matching_example_not_diluted_by_the_others() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry, Example

    def ex(i: int, title: str, code: str, apis: list[str]) -> Example:
        return Example(
            example_id=f"e{i}", title=title, code=code, language="python", source="d", path="p.md",
            line=i, apis_used=apis, complete=True,
        )  # fmt: skip

    hub = ApiEntry(api_id="pkg.Transport", kind="class", name="Transport", description="A transport.")
    niche = ApiEntry(api_id="pkg.Pool", kind="class", name="Pool", description="A pool.")
    # the transport has one short example about failed connections among nine others; the pool
    # one longer example that says the same words
    examples = [ex(0, "Retries", "Transport(retries=3)  # retry failed connections", ["pkg.Transport"])]
    other = "\n".join(f"Transport(option{{i}}_{k}=True)  # setting {k} of topic {{i}}" for k in range(8))
    examples += [ex(i, f"Topic {i}", other.format(i=i), ["pkg.Transport"]) for i in range(1, 10)]
    examples.append(
        ex(
            10,
            "Pool",
            "Pool()  # keeps open connections for reuse; a failed one is dropped and replaced later",
            ["pkg.Pool"],
        )
    )
    hub.examples = [x.example_id for x in examples[:10]]
    niche.examples = ["e10"]
    index = ApiIndex({"pkg": ([hub, niche], examples)})
    ranking = index._lexical([("fail", 1.0), ("connect", 1.0)], None)
    assert [index.entries[i][1].api_id for i, _ in ranking] == ["pkg.Transport", "pkg.Pool"]
    # (all of a transport's examples as one text: 0.4 of the pool's score, on length alone)


@pytest.mark.parametrize("seed", range(5))
def test_the_lexical_field_scores_are_bm25(seed: int) -> None:
    import math
    import random

    from docmentor.library.find.bm25f import BM25Field
    from docmentor.library.find.config import DEFAULT

    K1, B = DEFAULT.bm25_k1, DEFAULT.bm25_b

    rng = random.Random(seed)
    words = [f"w{i}" for i in range(12)]
    docs = [[rng.choice(words) for _ in range(rng.randint(0, 9))] for _ in range(15)]
    f = BM25Field()
    for d in docs:
        f.add(d)
    f.freeze()
    query = [(w, rng.choice([0.5, 1.0])) for w in rng.sample(words, 4)]
    got = np.zeros(len(docs))
    f.add_scores(query, got, 2.0)
    avg = sum(map(len, docs)) / len(docs)
    for i, d in enumerate(docs):
        want = 0.0
        for term, w in query:
            tf, df = d.count(term), sum(term in x for x in docs)
            if tf:
                idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                want += 2.0 * w * idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(d) / avg))
        assert got[i] == pytest.approx(want)


@pytest.mark.parametrize("seed", range(5))
def test_weighted_fields_are_bm25f(seed: int) -> None:
    """Each field's frequency normalised by its own length, weighted, added, saturated once."""
    import math
    import random

    from docmentor.library.find.bm25f import BM25Field
    from docmentor.library.find.config import DEFAULT

    K1, B = DEFAULT.bm25_k1, DEFAULT.bm25_b

    rng = random.Random(seed)
    words = [f"w{i}" for i in range(10)]
    weights = {"name": 2.0, "signature": 0.5, "doc": 1.5}
    docs = [
        {f: [rng.choice(words) for _ in range(rng.randint(0, 6 if f == "name" else 12))] for f in weights}
        for _ in range(12)
    ]
    f = BM25Field(weights)
    for d in docs:
        f.add(d)
    f.freeze()
    query = [(w, rng.choice([0.5, 1.0])) for w in rng.sample(words, 4)]
    got = np.zeros(len(docs))
    f.add_scores(query, got, 1.0)
    f.freeze()  # again: nothing changes
    again = np.zeros(len(docs))
    f.add_scores(query, again, 1.0)
    assert (again == got).all()
    with pytest.raises(RuntimeError, match="frozen"):
        f.add({"name": ["w1"]})
    with pytest.raises(ValueError, match="unknown fields"):
        BM25Field(weights).add({"nmae": ["w1"]})
    with pytest.raises(ValueError, match="name the fields"):
        BM25Field(weights).add(["w1"])
    avg = {name: sum(len(d[name]) for d in docs) / len(docs) for name in weights}
    for i, d in enumerate(docs):
        want = 0.0
        for term, w in query:
            tf = sum(
                weights[name] * d[name].count(term) / (1 - B + B * len(d[name]) / avg[name])
                for name in weights
            )
            df = sum(any(term in x[name] for name in weights) for x in docs)
            if tf:
                idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                want += w * idf * tf * (K1 + 1) / (tf + K1)
        assert got[i] == pytest.approx(want)


def test_a_word_in_every_field_of_an_api_counts_once() -> None:
    """An API whose name, signature and docstring hold one of a task's words does not outrank
    the one whose docstring holds several (summed per-field scores did)."""
    entries = [
        ApiEntry(api_id="cli.Option.value_from_envvar", kind="method", name="value_from_envvar",
                 signature="value_from_envvar(self, ctx: Context) -> str | None",
                 docstring="Reads the value of the option from the environment variable."),
        ApiEntry(api_id="cli.Choice", kind="class", name="Choice", signature="Choice(choices: Sequence[str])",
                 docstring="The choice type allows a value to be checked against a fixed set of supported "
                           "values. All of these values have to be strings. See the guide for an example."),
    ] + [
        ApiEntry(api_id=f"cli.Thing{i}", kind="class", name=f"Thing{i}", signature=f"Thing{i}()",
                 docstring=f"Thing number {i} of the library, for option parsing.")
        for i in range(6)
    ]  # fmt: skip
    index = ApiIndex({"cli": (entries, [])})
    found = index.find("restrict an option's value to one of a fixed set of strings", limit=2)
    assert [h.entry.api_id for h in found] == ["cli.Choice", "cli.Option.value_from_envvar"]


def test_examples_for_a_task_rank_by_how_well_their_text_matches() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry, Example

    def ex(i: int, title: str, code: str) -> Example:
        return Example(
            example_id=f"e{i}", title=title, code=code, language="python", source="d", path="p.md",
            line=i, apis_used=["pkg.get"], complete=True,
        )  # fmt: skip

    logging = ex(1, "Logging", '# a large config\nLOG = {"stream": "ext://sys.stderr"}\n')
    streaming = ex(
        2, "Streaming downloads",
        "# stream the download instead of reading it at once\nwith stream('GET', url) as r:\n"
        "    for chunk in r.iter_bytes():  # the download, streamed\n        save(chunk)\n",
    )  # fmt: skip
    others = [ex(i, f"Topic {i}", f"get('/{i}')\n") for i in range(3, 8)]
    index = ApiIndex(
        {"pkg": ([ApiEntry(api_id="pkg.get", kind="function", name="get")], [logging, streaming, *others])}
    )
    found = index.examples_for("stream a large download", limit=2)
    assert [e.example_id for _, e, _ in found] == ["e2", "e1"]


def test_examples_of_one_library_are_not_measured_against_another_librarys() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry, Example

    def ex(
        i: int, code: str, api: str, complexity: Literal["beginner", "intermediate", "advanced"] = "beginner"
    ) -> Example:
        return Example(
            example_id=f"e{i}", title=f"Example {i}", code=code, language="python", source="d", path="p.md",
            line=i, apis_used=[api], complete=True, complexity=complexity,
        )  # fmt: skip

    strong = "# upload the file, upload it in parts, upload resumes\nupload(f)\n"
    weak = "# an upload\nsend(f)\n"
    index = ApiIndex({
        "a": ([ApiEntry(api_id="a.upload", kind="function", name="upload")], [ex(1, strong, "a.upload")]),
        "b": ([ApiEntry(api_id="b.send", kind="function", name="send")],
              [ex(2, weak, "b.send"), ex(3, weak + "# more\n", "b.send", "advanced")]),
    })  # fmt: skip
    assert [e.example_id for _, e, _ in index.examples_for("upload a file", library="b")] == ["e2", "e3"]
    found = index.examples_for("upload a file", library="b", complexity="advanced")
    # its own best: full marks for the text (1.0), + complete 0.1, its library's API 0.2, its language 0.2
    assert [(e.example_id, round(s, 2)) for _, e, s in found] == [("e3", 1.5)]


def test_examples_for_a_task_are_those_of_the_apis_that_do_it_in_the_librarys_language() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry, Example

    def ex(i: int, title: str, code: str, apis: list[str], language: str = "python") -> Example:
        return Example(
            example_id=f"e{i}", title=title, code=code, language=language, source="d", path="p.md",
            line=i, apis_used=apis, complete=True,
        )  # fmt: skip

    add = ApiEntry(
        api_id="db.Table.add", kind="method", name="add", parent="db.Table", description="Add rows."
    )
    delete = ApiEntry(
        api_id="db.Table.delete", kind="method", name="delete", parent="db.Table", description="Delete."
    )
    adding = ex(1, "Add data", "tbl.add([{'x': 1}])\n", ["db.Table.add"])
    deleting = ex(
        2, "Delete rows from a table", "tbl.delete('x = 1')  # rows of a table\n", ["db.Table.delete"]
    )
    reference = ex(3, "add rows to a table", "add(rows: Row[]): Promise<void>\n", [], language="typescript")
    add.examples, delete.examples = ["e1"], ["e2"]
    index = ApiIndex({"db": ([add, delete], [adding, deleting, reference])})
    assert [h.entry.api_id for h in index.find("add rows to a table", limit=1)] == ["db.Table.add"]
    found = [e.example_id for _, e, _ in index.examples_for("add rows to a table", limit=3)]
    assert found[0] == "e1"  # the example of the API that adds, though others share more words
    assert found.index("e2") < found.index("e3")  # a TypeScript signature is no answer for a Python library


def test_every_replacement_a_deprecation_names_comes_before_it() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry

    old = ApiEntry(
        api_id="db.Table.create_fts_index", kind="method", name="create_fts_index", parent="db.Table",
        description="Create a full text search index on a text column.",
        deprecated="Use create_index() with config=FTS() instead.",
    )  # fmt: skip
    create = ApiEntry(api_id="db.Table.create_index", kind="method", name="create_index", parent="db.Table",
                      description="Create an index.")  # fmt: skip
    fts = ApiEntry(api_id="db.FTS", kind="class", name="FTS", description="Options.")
    other = ApiEntry(api_id="db.Table.search", kind="method", name="search", parent="db.Table",
                     description="Search the text column with a full text query.")  # fmt: skip
    index = ApiIndex({"db": ([old, create, fts, other], [])})
    found = [h.entry.api_id for h in index.find("create a full text search index on a text column", limit=4)]
    assert found.index("db.Table.create_fts_index") > max(
        found.index("db.Table.create_index"), found.index("db.FTS")
    )


def test_a_task_nothing_matches_gets_no_examples() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry, Example

    example = Example(
        example_id="e1", title="Add data", code="tbl.add([1])\n", language="python", source="d", path="p.md",
        line=1, apis_used=["db.add"], complete=True,
    )  # fmt: skip
    index = ApiIndex(
        {"db": ([ApiEntry(api_id="db.add", kind="function", name="add", examples=["e1"])], [example])}
    )
    assert index.examples_for("zzqx frobnicate quux") == []
    assert [e.example_id for _, e, _ in index.examples_for("add data")] == ["e1"]


def test_a_task_verb_the_library_does_not_use_finds_the_api_named_with_its_synonym() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry
    from docmentor.search.analyzer import analyze_query

    get = ApiEntry(api_id="pkg.get", kind="function", name="get", description="Issue a request.")
    close = ApiEntry(api_id="pkg.close", kind="function", name="close", description="Release the pool.")
    index = ApiIndex({"pkg": ([get, close], [])})
    # WordNet: fetch (first sense) = bring, get, convey
    assert [h.entry.api_id for h in index.find("fetch a document", limit=2)] == ["pkg.get"]
    assert index.query_terms("fetch a document") == [*analyze_query("fetch a document"), ("get", 1.0)]
    # the section search is asked the synonyms too: the docs say what the API names say
    asked: list[str] = []

    def section_search(query: str, source: str) -> list[Any]:
        asked.append(query)
        return []

    searching = ApiIndex(
        {"pkg": ([get, close], [])},
        docs_sources={"pkg": "pkg-docs"},
        section_search=section_search,
    )
    searching.find("fetch a document")
    assert asked == ["fetch a document get"]
    # a library that names an API with the task's own word keeps it: no synonym is added
    fetch = ApiEntry(api_id="pkg.fetch", kind="function", name="fetch", description="Fetch something.")
    own = ApiIndex({"pkg": ([get, close, fetch], [])})
    assert ("get", 1.0) not in own.query_terms("fetch a document")
    assert [h.entry.api_id for h in own.find("fetch a document", limit=2)] == ["pkg.fetch"]


def test_synonyms_join_only_for_words_no_api_name_holds_and_only_as_written() -> None:
    from docmentor.library.find.synonyms import synonyms, verb_synonyms

    def found(
        query: str, names: set[str], present: list[tuple[str, float]] | None = None
    ) -> list[tuple[str, ...]]:
        return [(s.word, s.synonym, *s.terms) for s in synonyms(query, names, present or [])]

    table = verb_synonyms()
    assert table["dispatch"] == ("despatch", "send") and table["append"] == ("add", "supplement", "affix")
    names = {"send", "add", "get", "request", "build", "releas", "put", "set", "found"}
    assert found("dispatch a request by hand", names) == [("dispatch", "send", "send")]
    assert found("append rows to the table", names) == [("append", "add", "add")]
    # the synonym as WordNet writes it, for the section search; its stem for the API names
    assert found("relinquish the pool", names) == [("relinquish", "release", "releas")]
    # a participle describes the thing involved, not the wanted action: not looked up
    assert found("send the request I constructed", names) == []
    assert found("create a request without dispatching it", names) == []
    # nor identifiers, numbers or accented words ("base64" is no "base" to found)
    assert found("decode base64 from open_table with résumé 2", names) == []
    # a word WordNet knows better as a noun is no verb here ("table": put off, set back)
    assert "table" not in table and "key" not in table
    # nor a verb whose first sense is not most of its uses: "call" is mostly not "name"
    # (36 % of its tagged uses), "serve" not "function" (26 %)
    assert "call" not in table and "serve" not in table and "back" not in table
    assert found("call an endpoint", {*names, "name"}) == []
    # a verb of one sense, or whose first sense is most of its uses, is kept (build: 88 %)
    assert table["build"][0] == "construct" and table["shut"] == ("close",)
    # a light verb heading a phrase says nothing of it: "start" is begin, get, commence
    assert "set" not in table["start"] and "get" in table["start"]
    # a synonym no API name holds adds nothing; neither do function words
    assert found("combine two tables", names) == []  # combine = unite
    assert found("do it", {"make"}) == []
    # a synonym already among the query's terms is not added twice
    assert found("fetch and get", names, [("fetch", 1.0), ("get", 1.0)]) == []
    # never more terms than an analysed query may have
    many = [(f"t{i}", 1.0) for i in range(64)]
    assert found("fetch it", names, many) == []


def test_synonyms_follow_the_names_of_the_library_asked_about() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry

    fetching = ApiEntry(api_id="a.fetch", kind="function", name="fetch", description="Fetch.")
    get = ApiEntry(api_id="b.get", kind="function", name="get", description="Issue a request.")
    index = ApiIndex({"a": ([fetching], []), "b": ([get], [])})
    # library a says "fetch": asked about b alone, b's own names decide
    assert [h.entry.api_id for h in index.find("fetch a document", library="b")] == ["b.get"]
    assert ("get", 1.0) not in index.query_terms("fetch a document")  # across both: a has "fetch"


def _fn(api_id: str, *aliases: str, **fields: Any) -> ApiEntry:
    name = api_id.rsplit(".", 1)[-1]
    values: dict[str, Any] = {
        "kind": "function",
        "name": name,
        "description": f"{name.title()} it.",
        **fields,
    }
    return ApiEntry(api_id=api_id, aliases=list(aliases), **values)


WORDS = ["parse", "dump", "copy", "load", "merge", "split", "check", "build", "clear", "close", "open"]


def _scores(index: ApiIndex, query: str) -> dict[str, float]:
    return {h.entry.api_id: h.score for h in index.find(query, limit=30)}


def test_apis_of_a_namespace_that_mirrors_the_root_rank_after_the_roots_own() -> None:
    from docmentor.library.find.config import DEFAULT
    from docmentor.library.find.priors import mirrored, secondary
    from docmentor.library.find.retrieval import ApiIndex

    SECONDARY_WEIGHT = DEFAULT.secondary_weight
    from docmentor.library.models import ApiEntry

    root = [_fn(f"pkg.zcore.{w}", f"pkg.{w}") for w in WORDS]
    # pkg.compat repeats ten of the root's names (a v1 kept for old code); pkg.tools only two
    compat = [_fn(f"pkg.compat._core.{w}", f"pkg.compat.{w}") for w in WORDS[:10]]
    tools = [
        _fn(f"pkg.tools._t.{w}", f"pkg.tools.{w}") for w in [*WORDS[:2], *(f"util{i}" for i in range(9))]
    ]
    entries = [*compat, *root, *tools]
    assert mirrored(entries, "pkg") == {e.api_id for e in compat}
    # the compatibility copies are off the root's path too: they weigh 0.8 once, not 0.8²
    assert secondary(entries, "pkg") >= {e.api_id for e in compat}
    found = _scores(ApiIndex({"pkg": (entries, [])}), "copy it")
    assert next(iter(found)) == "pkg.zcore.copy"  # the root's copy first, the compatibility one after
    plain = _scores(ApiIndex({"pkg": (entries, [])}, config=DEFAULT.replace(secondary_weight=1.0)), "copy it")
    ratio, plain_ratio = (s["pkg.compat._core.copy"] / s["pkg.zcore.copy"] for s in (found, plain))
    assert ratio < plain_ratio and ratio == pytest.approx(SECONDARY_WEIGHT * plain_ratio)
    # a class's members are no namespace: Client.get next to pkg.get mirrors nothing
    client = ApiEntry(api_id="pkg._c.Client", aliases=["pkg.Client"], kind="class", name="Client")
    members = [
        ApiEntry(
            api_id=f"pkg._c.Client.{w}",
            aliases=[f"pkg.Client.{w}"],
            kind="method",
            name=w,
            parent="pkg._c.Client",
        )
        for w in WORDS
    ]
    assert mirrored([*root, client, *members], "pkg") == set()
    # an async edition repeating the root's names as coroutines is no compatibility copy
    aio = [_fn(f"pkg.aio._core.{w}", f"pkg.aio.{w}", signature=f"async {w}() -> None") for w in WORDS[:10]]
    assert mirrored([*root, *aio], "pkg") == set()
    # the root's own API with a longer alias into a mirror is judged by its shortest path
    own = _fn("pkg.helper", "pkg.compat.helper")
    assert "pkg.helper" not in mirrored([*root, *compat, own], "pkg")


def test_apis_neither_the_root_package_nor_the_docs_lead_to_rank_after_those_they_do() -> None:
    from docmentor.library.find.config import DEFAULT
    from docmentor.library.find.priors import unreached
    from docmentor.library.find.retrieval import ApiIndex

    SECONDARY_WEIGHT = DEFAULT.secondary_weight
    from docmentor.library.models import ApiEntry, ApiReturn

    connect = _fn("pkg._db.connect", "pkg.connect", returns=ApiReturn(type="Conn", class_id="pkg._db.Conn"))
    conn = ApiEntry(api_id="pkg._db.Conn", kind="class", name="Conn", bases=["Base"])  # not exported
    # inherited: named on the base that is no export either, with the subclass's path as alias
    tables = ApiEntry(
        api_id="pkg._db.Base.tables", aliases=["pkg._db.Conn.tables"], kind="method", name="tables",
        parent="pkg._db.Base", returns=ApiReturn(type="Iterator[Table]", item_class_id="pkg._t.Table"),
        description="Walk the tables.",
    )  # fmt: skip
    table = ApiEntry(api_id="pkg._t.Table", kind="class", name="Table", description="A table.")
    rename = ApiEntry(api_id="pkg._t.Table.rename", kind="method", name="rename", parent="pkg._t.Table",
                      description="Rename a table.")  # fmt: skip
    # a hook class only its submodule exports: an extension point
    hook = ApiEntry(api_id="pkg.hooks.Hook", kind="class", name="Hook", description="Rename a table on load.")
    on_load = ApiEntry(api_id="pkg.hooks.Hook.on_load", kind="method", name="on_load", parent="pkg.hooks.Hook",
                       description="Rename a table on load.")  # fmt: skip
    # a strategies module the docs import from (an example uses one of its functions)
    ints = _fn("pkg.strategies.integers", examples=["e1"])
    floats = _fn("pkg.strategies.floats")
    entries = [connect, conn, tables, table, rename, hook, on_load, ints, floats]
    gone = ["pkg.hooks.Hook", "pkg.hooks.Hook.on_load"]
    assert [e.api_id for e in unreached(entries, "pkg")] == gone
    # a library registered under its distribution's name: its package is what its paths share
    assert [e.api_id for e in unreached(entries, "py-pkg")] == gone
    # a dotted package is its own root; with no export known, nothing is taken for unreached
    dotted = [_fn("az.blob._c.upload", "az.blob.upload"), _fn("az.blob._x.hook")]
    assert [e.api_id for e in unreached(dotted, "az.blob")] == ["az.blob._x.hook"]
    assert unreached([_fn("az.blob._x.hook")], "az.blob") == []
    # another language's entry with the same id is never weighed down
    ts_hook = hook.model_copy(update={"language": "typescript"})
    index = ApiIndex({"pkg": ([*entries, ts_hook], [])})
    assert {index.entries[i][1].language for i in index._secondary} == {"python"}

    found = _scores(ApiIndex({"pkg": (entries, [])}), "rename a table")
    unweighed = DEFAULT.replace(secondary_weight=1.0)
    plain = _scores(ApiIndex({"pkg": (entries, [])}, config=unweighed), "rename a table")
    ratio, plain_ratio = (s["pkg.hooks.Hook"] / s["pkg._t.Table.rename"] for s in (found, plain))
    assert ratio < plain_ratio and ratio == pytest.approx(SECONDARY_WEIGHT * plain_ratio)


def test_a_data_attribute_comes_after_a_callable_that_matches_the_task_as_well() -> None:
    from docmentor.library.find.config import DEFAULT
    from docmentor.library.find.retrieval import ApiIndex

    ATTRIBUTE_WEIGHT = DEFAULT.attribute_weight
    unweighed_data = DEFAULT.replace(attribute_weight=1.0)
    from docmentor.library.models import ApiEntry

    cls = ApiEntry(api_id="pkg._r.Result", aliases=["pkg.Result"], kind="class", name="Result")
    member: dict[str, Any] = {"parent": "pkg._r.Result", "description": "The exit code of the command."}
    # the same words: the value a run leaves, and the method that checks it
    code = ApiEntry(api_id="pkg._r.Result.exit_code", kind="attribute", name="exit_code", **member)
    check = ApiEntry(api_id="pkg._r.Result.check_exit_code", kind="method", name="check_exit_code", **member)
    prop = ApiEntry(api_id="pkg._r.Result.exit_status", kind="property", name="exit_status", **member)
    # and the rest of a library, so that the words' idf are a library's, not three APIs'
    others = [
        ApiEntry(
            api_id=f"pkg._r.Other{i}",
            kind="class",
            name=f"Other{i}",
            description=f"Something else, number {i}.",
        )
        for i in range(8)
    ]
    entries = [cls, code, check, prop, *others]
    found = _scores(ApiIndex({"pkg": (entries, [])}), "exit code of the command")
    plain = _scores(ApiIndex({"pkg": (entries, [])}, config=unweighed_data), "exit code of the command")
    # unweighted, the attribute's exact name wins; weighted, the method that does the task
    assert next(iter(plain)) == "pkg._r.Result.exit_code"
    assert next(iter(found)) == "pkg._r.Result.check_exit_code"
    ratio, plain_ratio = (
        s["pkg._r.Result.exit_code"] / s["pkg._r.Result.check_exit_code"] for s in (found, plain)
    )
    assert ratio == pytest.approx(ATTRIBUTE_WEIGHT * plain_ratio)
    # an attribute a deprecated API names as its replacement still takes its place
    old = ApiEntry(api_id="pkg._r.Result.overwrite_mode", kind="method", name="overwrite_mode",
                   parent="pkg._r.Result", description="Set the mode to overwrite the rows.",
                   deprecated="Use `pkg._r.Mode.OVERWRITE`.")  # fmt: skip
    mode = ApiEntry(api_id="pkg._r.Mode.OVERWRITE", kind="attribute", name="OVERWRITE", parent="pkg._r.Mode",
                    description="Replace the rows.")  # fmt: skip
    lifted = [
        h.entry.api_id for h in ApiIndex({"pkg": ([old, mode], [])}).find("overwrite the rows", limit=2)
    ]
    assert lifted == ["pkg._r.Mode.OVERWRITE", "pkg._r.Result.overwrite_mode"]
    # a property with a setter is a setting one changes to act, and one whose setter is not
    # known (an older knowledge base) is left alone too: not weighed down; a read-only one is data
    for writable, weight in ((True, 1.0), (None, 1.0), (False, ATTRIBUTE_WEIGHT)):
        entries = [cls, code, check, prop.model_copy(update={"writable": writable})]
        weighed = _scores(ApiIndex({"pkg": (entries, [])}), "exit code of the command")
        unweighed = _scores(
            ApiIndex({"pkg": (entries, [])}, config=unweighed_data), "exit code of the command"
        )
        ratio, plain_ratio = (
            s["pkg._r.Result.exit_status"] / s["pkg._r.Result.check_exit_code"] for s in (weighed, unweighed)
        )
        assert ratio == pytest.approx(weight * plain_ratio), writable
    # a module is a place to import from, not what a task calls: weighed as data
    module = ApiEntry(api_id="pkg._r", kind="module", name="_r", description="The exit code of the command.")
    entries = [cls, module, check, *others]
    weighed = _scores(ApiIndex({"pkg": (entries, [])}), "exit code of the command")
    unweighed = _scores(ApiIndex({"pkg": (entries, [])}, config=unweighed_data), "exit code of the command")
    ratio, plain_ratio = (s["pkg._r"] / s["pkg._r.Result.check_exit_code"] for s in (weighed, unweighed))
    assert ratio == pytest.approx(ATTRIBUTE_WEIGHT * plain_ratio)


def test_a_replacement_keeps_its_place_when_what_it_replaces_is_off_the_path() -> None:
    from docmentor.library.find.retrieval import ApiIndex

    fetch = _fn("pkg._io.fetch", "pkg.fetch", description="Get a resource.")
    old = _fn("pkg.legacy.download_file", description="Download a file from a url to disk.",
              deprecated="Use pkg.fetch instead.")  # fmt: skip
    # nearly as good a match as the deprecated one: the replacement must not fall below it
    other = _fn(
        "pkg._io.download_file_async", "pkg.download_file_async", description="Download a file from a url."
    )
    found = [
        h.entry.api_id
        for h in ApiIndex({"pkg": ([fetch, old, other], [])}).find("download a file from a url to disk")
    ]
    assert found.index("pkg._io.fetch") < found.index("pkg.legacy.download_file")
    assert found[0] == "pkg._io.fetch"  # lifted to the deprecated one's place, not to 0.8 of it


def _member(cls: str, name: str, **fields: Any) -> ApiEntry:
    values: dict[str, Any] = {"description": f"{name.title()} it.", **fields}
    return ApiEntry(api_id=f"pkg._t.{cls}.{name}", aliases=[f"pkg.{cls}.{name}"], kind="method", name=name,
                    parent=f"pkg._t.{cls}", **values)  # fmt: skip


def test_sync_and_async_editions_of_an_api_are_found_by_name() -> None:
    from docmentor.library.find.twins import editions

    table, atable = (ApiEntry(api_id=f"pkg._t.{c}", kind="class", name=c) for c in ("Table", "AsyncTable"))
    entries = [
        table, atable,
        _member("Table", "delete"), _member("AsyncTable", "delete", signature="async delete(self) -> None"),
        _member("Table", "read"), _member("Table", "aread", signature="async aread(self) -> bytes"),
        _member("Table", "add"),  # starts with "a" but no coroutine: not an edition of "dd"
        _member("Table", "dd"),
        _fn("pkg._t.connect"), _fn("pkg._t.connect_async", signature="async connect_async() -> None"),
        # an Asyncio class is no async edition of "io"; one in another module is another class
        ApiEntry(api_id="pkg._t.Asyncio", kind="class", name="Asyncio"),
        ApiEntry(api_id="pkg._t.io", kind="class", name="io"),
        ApiEntry(api_id="pkg.other.Table", kind="class", name="Table"),
    ]  # fmt: skip
    assert sorted(editions(entries)) == [
        ["pkg._t.AsyncTable", "pkg._t.Table"],
        ["pkg._t.AsyncTable.delete", "pkg._t.Table.delete"],
        ["pkg._t.Table.aread", "pkg._t.Table.read"],
        ["pkg._t.connect", "pkg._t.connect_async"],
    ]


def test_an_apis_second_edition_comes_after_the_next_distinct_answer() -> None:
    from docmentor.library.find.config import DEFAULT

    TWIN_WEIGHT = DEFAULT.twin_weight

    table, atable = (ApiEntry(api_id=f"pkg._t.{c}", kind="class", name=c) for c in ("Table", "AsyncTable"))
    delete = _member("Table", "delete", description="Delete rows from the table.")
    adelete = _member("AsyncTable", "delete", description="Delete rows from the table.",
                      signature="async delete(self, where: str) -> None")  # fmt: skip
    purge = _fn(
        "pkg._t.purge_rows", "pkg.purge_rows", description="Remove the rows of the table that match a filter."
    )
    others = [  # the rest of a library: a library's idf, not five APIs'
        ApiEntry(
            api_id=f"pkg._t.Other{i}",
            kind="class",
            name=f"Other{i}",
            description=f"Something else, number {i}.",
        )
        for i in range(8)
    ]
    entries = [table, atable, delete, adelete, purge, *others]
    hits = ApiIndex({"pkg": (entries, [])}).find("delete rows from the table", limit=5)
    ids = [h.entry.api_id for h in hits]
    first = ids[0]
    assert first in {delete.api_id, adelete.api_id}
    twin = ({delete.api_id, adelete.api_id} - {first}).pop()
    # the second edition matches better than the other answer, yet comes after it
    assert ids[1:3] == [purge.api_id, twin]
    by_id = {h.entry.api_id: h for h in hits}
    assert by_id[twin].relevance > by_id[purge.api_id].relevance
    # the relevance is its own, the score the place it was listed at
    assert by_id[twin].score == pytest.approx(TWIN_WEIGHT * by_id[twin].relevance)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # each result names its other editions, by the path users import them by
    public = {a: a.replace("pkg._t.", "pkg.") for a in (first, twin)}
    assert by_id[first].variants == [public[twin]] and by_id[twin].variants == [public[first]]
    assert by_id[purge.api_id].variants == []
    assert by_id[first].to_dict(1)["variants"] == [public[twin]]
    # without the rule, the two editions come first
    index = ApiIndex({"pkg": (entries, [])}, config=DEFAULT.replace(twin_weight=1.0))
    plain = [h.entry.api_id for h in index.find("delete rows from the table", limit=5)]
    assert plain[:3] == [first, twin, purge.api_id]


def test_generation_reports_its_progress(tmp_path: Path, lib: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    _generate(tmp_path, lib, "progress", progress=lambda done, total, step: calls.append((step, done, total)))
    steps = list(dict.fromkeys(step for step, _, _ in calls))
    assert steps == [
        "reading the API",
        "indexing the docs",
        "matching examples",
        "embedding APIs",
        "docstring examples",
        "writing outputs",
    ]
    for name in steps:  # each starts at 0 and ends done
        mine = [(done, total) for step, done, total in calls if step == name]
        assert mine[0][0] == 0 and mine[-1][0] == mine[-1][1] > 0
        assert [d for d, _ in mine] == sorted(d for d, _ in mine)
    texts = next(total for step, _, total in calls if step == "embedding APIs")
    assert texts >= 18  # every API, then its docstring passages


def test_sphinx_roles_are_read_as_the_words_they_name() -> None:
    from docmentor.library.find.api_text import embedding_text
    from docmentor.library.surface.docstrings import plain

    text = (
        "Raise an :exc:`~werkzeug.exceptions.HTTPException`; see :doc:`/testing`, :ref:`the guide <guide>`."
    )
    assert plain(text) == "Raise an HTTPException; see testing, the guide."
    assert (
        plain(":py:meth:`Flask.route` and :class:`!Foo`, not `code`: 3:4")
        == "Flask.route and Foo, not `code`: 3:4"
    )
    entry = ApiEntry(api_id="pkg.abort", kind="function", name="abort", description=text,
                     docstring=f"{text}\n\nThe :func:`~pkg.redirect` twin, for a :class:`pkg.Response`.")  # fmt: skip
    assert "Raise an HTTPException; see testing" in embedding_text(entry, {})
    assert passage_texts(entry)[-1] == "pkg.abort: The redirect twin, for a pkg.Response."
    # the BM25 doc field reads the words too: "httpexception" is a term, "exc" is not
    index = ApiIndex({"pkg": ([entry], [])})
    assert "httpexception" in index.text.postings and "exc" not in index.text.postings
    # an answer shows them as Sphinx renders them: code as inline code, references as words
    param = ApiParameter(name="code", description="Registered in :attr:`~pkg.App.aborter`.")
    shown = ApiIndex({"pkg": ([entry.model_copy(update={"parameters": [param]})], [])})
    hit = shown.find("raise an http exception", limit=1)[0].to_dict(1)
    assert hit["description"] == "Raise an `HTTPException`; see testing, the guide."
    assert hit["parameters"][0]["description"] == "Registered in `aborter`."


@pytest.mark.timeout(30)  # a hang guard: quadratic backtracking took ~14 s, minutes at 4× the size
def test_reading_roles_is_linear_on_long_colon_runs() -> None:
    from docmentor.library.surface.docstrings import plain

    assert plain(":a" * 128_000) == ":a" * 128_000
    assert plain("(:class:`B`) and :py:meth:`~x.C.d`") == "(B) and d"


def test_a_deprecation_reason_is_shown_as_a_reader_sees_it() -> None:
    from docmentor.library.find.retrieval import ApiIndex

    old = ApiEntry(api_id="pkg.Conn.table_names", kind="method", name="table_names", parent="pkg.Conn",
                   description="List the tables.", deprecated="Use :meth:`list_tables` instead.")  # fmt: skip
    new = ApiEntry(api_id="pkg.Conn.list_tables", kind="method", name="list_tables", parent="pkg.Conn",
                   description="List the tables, page by page.")  # fmt: skip
    hits = ApiIndex({"pkg": ([old, new], [])}).find("list the tables", limit=2)
    shown = {h.entry.api_id: h.to_dict(1)["deprecated"] for h in hits}
    assert shown == {"pkg.Conn.list_tables": None, "pkg.Conn.table_names": "Use `list_tables` instead."}


def test_readme_example_is_about_the_api_and_needs_no_other_package() -> None:
    from docmentor.library.knowledge.readme import best_example
    from docmentor.library.models import ApiEntry, Example

    client = ApiEntry(api_id="pkg._client.Client", aliases=["pkg.Client"], kind="class", name="Client")
    table = ApiEntry(api_id="pkg.db.Table", kind="class", name="Table")

    def ex(i: int, code: str, apis: list[str], headings: list[str], complete: bool = True) -> Example:
        return Example(
            example_id=f"e{i}", title=headings[-1], code=code, language="python", source="d", path="p.md",
            line=i, apis_used=apis, complete=complete, heading_path=headings,
        )  # fmt: skip

    # the shortest complete one imports a third-party package: a recipe, not the API's example
    recipe = ex(1, "import truststore\nimport pkg\nc = pkg.Client(verify=truststore.X())\n",
                ["pkg._client.Client"], ["SSL", "System certificates"])  # fmt: skip
    stdlib = ex(2, "import ssl\nimport pkg\n\nctx = ssl.create_default_context()\nc = pkg.Client(verify=ctx)\n",
                ["pkg._client.Client"], ["SSL", "Custom context"])  # fmt: skip
    assert best_example(client, [recipe, stdlib], validated=False) is stdlib
    # the library's own submodules and relative imports are no other package
    own = ex(3, "import pkg.auth\nfrom . import helpers\nfrom pkg import Client\n\nc = Client(auth=pkg.auth.A())\n",
             ["pkg._client.Client"], ["Auth"])  # fmt: skip
    assert best_example(client, [recipe, own], validated=False) is own
    # under a heading that names it (plural or not) before a shorter one elsewhere
    named = ex(4, "import pkg\n\nwith pkg.Client() as client:\n    client.get('https://example.org')\n",
               ["pkg._client.Client"], ["Clients", "Usage"])  # fmt: skip
    assert best_example(client, [stdlib, named], validated=False) is named
    # all of a name's words, in order: "Async clients" names AsyncClient, "Clients" does not
    aclient = ApiEntry(api_id="pkg._client.AsyncClient", kind="class", name="AsyncClient")
    uses = ["pkg._client.AsyncClient"]
    plain = ex(5, "import pkg\n\npkg.AsyncClient()\n", uses, ["Clients"])
    asynchronous = ex(
        9, "import pkg\n\nasync with pkg.AsyncClient() as c:\n    await c.get('/')\n", uses, ["Async clients"]
    )
    assert best_example(aclient, [plain, asynchronous], validated=False) is asynchronous
    # a class no example uses by name is shown with one that uses its members
    search = ex(6, "tbl.search([1, 2]).limit(2)\n", ["pkg.db.Table.search"], ["Search"], complete=False)
    assert best_example(table, [search], validated=False) is search
    # but one that uses the class itself comes first; a function takes no member's example
    direct = ex(7, "import pkg\n\nt = pkg.db.Table('x')\nt.search([1])\n",
                ["pkg.db.Table", "pkg.db.Table.search"], ["Tables"])  # fmt: skip
    assert best_example(table, [search, direct], validated=False) is direct
    connect = ApiEntry(api_id="pkg.db.connect", kind="function", name="connect")
    assert (
        best_example(connect, [ex(8, "pkg.db.connect.x()\n", ["pkg.db.connect.x"], ["C"])], validated=False)
        is None
    )


def test_readme_example_most_about_the_api_and_doctest_sessions_as_programs() -> None:
    import ast

    from docmentor.library.knowledge.readme import best_example, example_code, render_readme
    from docmentor.library.models import ApiEntry, Example

    client = ApiEntry(api_id="pkg.AsyncClient", kind="class", name="AsyncClient", signature="AsyncClient()")

    def ex(i: int, code: str, apis: list[str]) -> Example:
        return Example(
            example_id=f"e{i}", title="Usage", code=code, language="python", source="d", path="p.md",
            line=i, apis_used=apis, complete=True,
        )  # fmt: skip

    # the one most about the API before a shorter one that configures something else for it
    transport = ex(1, "import pkg\nt = pkg.Transport(retries=1)\nc = pkg.AsyncClient(transport=t)\n",
                   ["pkg.Transport", "pkg.AsyncClient"])  # fmt: skip
    program = ex(2, "import asyncio\nimport pkg\n\nasync def main():\n    async with pkg.AsyncClient() as c:\n"
                    "        print(await c.get('/'))\n\nasyncio.run(main())\n",
                 ["pkg.AsyncClient", "pkg.AsyncClient.get"])  # fmt: skip
    assert best_example(client, [transport, program], validated=False) is program
    # a doctest session (not valid Python as written) is shown as the program it spells,
    # its output as comments: it qualifies, and what README.LLM shows parses
    session = ex(3, "    >>> import pkg\n    >>> c = pkg.AsyncClient()\n    >>> for k in c.keys():\n"
                    "    ...     if k:\n    ...         print(k)\n    ...\n    a\n    >>> c.url\n    URL('/x')\n",
                 ["pkg.AsyncClient"])  # fmt: skip
    shown = example_code(session)
    assert shown == (
        "import pkg\nc = pkg.AsyncClient()\nfor k in c.keys():\n    if k:\n        print(k)\n\n# a\nc.url\n# URL('/x')"
    )
    ast.parse(shown)
    assert best_example(client, [session], validated=False) is session
    text = render_readme("pkg", "1.0", [client], [session], validated=False)
    assert "<context_1_example>\nimport pkg\nc = pkg.AsyncClient()" in text and ">>>" not in text


def test_review_of_the_late_session_examples_headings_and_sessions() -> None:
    from docmentor.library.knowledge.readme import api_words, best_example, example_code
    from docmentor.library.models import ApiEntry, Example

    client = ApiEntry(api_id="pkg.Client", kind="class", name="Client")
    aclient = ApiEntry(api_id="pkg.AsyncClient", kind="class", name="AsyncClient")

    def ex(i: int, code: str, apis: list[str], headings: list[str]) -> Example:
        return Example(
            example_id=f"e{i}", title=headings[-1], code=code, language="python", source="d", path="p.md",
            line=i, apis_used=apis, complete=True, heading_path=headings,
        )  # fmt: skip

    both = ex(
        1,
        "import pkg\nc = pkg.Client()\na = pkg.AsyncClient()\n",
        ["pkg.Client", "pkg.AsyncClient"],
        ["Async clients"],
    )
    alone = ex(2, "import pkg\n\nwith pkg.Client() as c:\n    c.close()\n", ["pkg.Client"], ["Transports"])
    names = api_words([client, aclient])
    # "Async clients" names AsyncClient, which the library has: not Client
    assert best_example(client, [both, alone], validated=False, names=names) is alone
    assert best_example(aclient, [both], validated=False, names=names) is both
    # plurals as headings write them: "Aliases" names Alias, "Queries" Query; "Status" stays
    alias = ApiEntry(api_id="pkg.Alias", kind="class", name="Alias")
    plural = ex(3, "import pkg\npkg.Alias('a')\npkg.Client()\n", ["pkg.Alias", "pkg.Client"], ["Aliases"])
    other = ex(4, "import pkg\npkg.Alias('b')\n", ["pkg.Alias"], ["Other things"])
    assert best_example(alias, [other, plural], validated=False) is plural
    # IPython sessions and a session under a comment of its own are programs too
    ipy = ex(5, "In [1]: import pkg\n\nIn [2]: for x in pkg.Client():\n   ...:     print(x)\n   ...:\n0\n\n"
                "In [3]: x\nOut[3]: 0", ["pkg.Client"], ["Use"])  # fmt: skip
    assert example_code(ipy) == "import pkg\n\nfor x in pkg.Client():\n    print(x)\n\n# 0\n\nx\n# 0"
    commented = ex(6, "# make one\n>>> import pkg\n>>> pkg.Client()\n<Client>", ["pkg.Client"], ["Use"])
    assert example_code(commented) == "# make one\nimport pkg\npkg.Client()\n# <Client>"


def test_review_of_the_late_session_lead_ins() -> None:
    from docmentor.library.knowledge.overview import build_overview
    from docmentor.library.knowledge.readme import render_readme
    from docmentor.library.models import ApiEntry
    from docmentor.library.surface.docstrings import says_nothing

    # labels and sentences that only point ahead say nothing; sentences that say something do
    assert says_nothing("Usage:") and says_nothing("For example:") and says_nothing("Example usage::")
    assert says_nothing("The components of a URL are broken down like this:")
    assert says_nothing("It works as follows:") and says_nothing("The options are shown below:")
    for said in (
        "Return rows below the given distance threshold:",
        "Send a request with the following options:",
        "Add these rows to the table:",
        "The query that defines a view, as stored:",
    ):
        assert not says_nothing(said), said

    def readme(description: str, docstring: str) -> str:
        entry = ApiEntry(api_id="pkg.f", kind="function", name="f", signature="f()", importance_score=1.0,
                         description=description, docstring=docstring)  # fmt: skip
        text = render_readme("pkg", "1", [entry], [], validated=False)
        return text.split("<context_1_description>\n", 1)[1].split("\n</context_1_description>", 1)[0]

    assert readme("Usage:", "Usage:\n\n    f()\n\nIt does things.") == "pkg.f is a function. It does things."
    kept = "Send a request with the following options:"
    assert (
        readme(kept, kept + "\n\n    f(a=1)\n\nIt sends.")
        == "pkg.f is a function. Send a request with the following options. It sends."
    )
    # a paragraph too long to show does not replace a sentence: it ends there instead; a
    # label goes anyway
    long = "word " * 200
    pointing = "The parts are broken down like this:"
    assert (
        readme(pointing, f"{pointing}\n\n    f()\n\n{long}")
        == "pkg.f is a function. The parts are broken down like this."
    )
    assert readme("Usage:", f"Usage:\n\n    f()\n\n{long}") == "pkg.f is a function."
    # the overview never shows a name with a colon and nothing after it
    f = ApiEntry(api_id="pkg.f", kind="function", name="f", importance_score=0.9,
                 description="The components of a URL are broken down like this:")  # fmt: skip
    ov = build_overview(library="pkg", version=None, purpose="", entries=[f], examples=[], sections=[])
    assert "- `pkg.f`\n" in ov.aspects["architecture"] + "\n" and "`pkg.f`:" not in ov.aspects["architecture"]


def test_readme_example_complete_program_imports_the_library() -> None:
    from docmentor.library.knowledge.readme import best_example
    from docmentor.library.models import ApiEntry, Example

    get = ApiEntry(api_id="pkg.client.Session.get", aliases=["pkg.Session.get"], kind="method", name="get",
                   parent="pkg.client.Session")  # fmt: skip

    def ex(i: int, code: str) -> Example:
        return Example(
            example_id=f"e{i}", title="Tracing", code=code, language="python", source="d", path="p.md",
            line=i, apis_used=["pkg.client.Session.get"], complete=True,
        )  # fmt: skip

    # a callback that needs no import is "complete", but no program of the library
    callback = ex(1, "async def on_start(session, ctx, params):\n    print(params)\n")
    program = ex(2, "import asyncio\nimport pkg\n\nasync def main():\n    async with pkg.Session() as s:\n"
                    "        await s.get('/')\n\nasyncio.run(main())\n")  # fmt: skip
    assert best_example(get, [callback, program], validated=False) is program


def test_find_api_shows_a_summary_as_a_reader_sees_it() -> None:
    from docmentor.library.find.retrieval import ApiIndex
    from docmentor.library.models import ApiEntry

    url = ApiEntry(
        api_id="pkg.URL",
        kind="class",
        name="URL",
        description="The components of a URL are broken down like this:",
    )
    view = ApiEntry(
        api_id="pkg.View", kind="class", name="View", description="The query that defines a view, as stored:"
    )
    index = ApiIndex({"pkg": ([url, view], [])})
    shown = {
        h.entry.api_id: h.to_dict(1)["description"] for h in index.find("url components view query", limit=5)
    }
    assert shown == {"pkg.URL": "", "pkg.View": "The query that defines a view, as stored."}


def _two_libraries() -> dict[str, tuple[list[ApiEntry], list[Any]]]:
    from docmentor.library.models import Example

    def ex(i: int, title: str, code: str, api: str) -> Example:
        return Example(example_id=f"w{i}", title=title, code=code, language="python", source="d", path="p.md",
                       line=i, apis_used=[api], complete=True, context=title)  # fmt: skip

    web = [
        ApiEntry(api_id="web.get", kind="function", name="get", docstring="Send a GET request to a URL."),
        ApiEntry(
            api_id="web.post", kind="function", name="post", docstring="Send a POST request with a body."
        ),
        ApiEntry(api_id="web.Client", kind="class", name="Client", docstring="An HTTP client with options."),
    ]
    web_examples = [
        ex(1, "Define the command line options of a script", "web.Client(options={'line': 1})", "web.Client"),
        ex(2, "Command line options for scripts", "web.Client(options={'option': 1})", "web.Client"),
        ex(3, "Post a form", "web.post('https://x', data={'line': 1})", "web.post"),
        *(ex(i, f"Fetch page {i}", f"web.get('https://x/{i}')", "web.get") for i in range(4, 12)),
    ]
    cli = [
        ApiEntry(api_id="cli.option", kind="function", name="option",
                 docstring="Attach an option to a command: a flag or a value given on the command line."),
        ApiEntry(api_id="cli.command", kind="function", name="command", docstring="Make a function a command."),
        ApiEntry(api_id="cli.echo", kind="function", name="echo", docstring="Print a message."),
    ]  # fmt: skip
    return {"web": (web, web_examples), "cli": (cli, [])}


def test_a_query_scoped_to_one_library_ranks_as_that_library_alone_would() -> None:
    libraries = _two_libraries()
    together = ApiIndex(libraries)
    for lib, (entries, examples) in libraries.items():
        alone = ApiIndex({lib: (entries, examples)})
        for query in ("send a request with options", "add an option on the command line", "print"):
            assert [
                (h.entry.api_id, round(h.score, 9)) for h in together.find(query, limit=5, library=lib)
            ] == [(h.entry.api_id, round(h.score, 9)) for h in alone.find(query, limit=5)]


def test_with_several_libraries_the_one_that_matches_the_task_comes_first() -> None:
    from docmentor.embeddings import LibraryVectors, get_embedder

    libraries = _two_libraries()
    embedder = get_embedder()
    vectors = {
        lib: LibraryVectors(
            model=MODEL_ID,
            api_ids=[e.api_id for e in entries],
            matrix=embedder.embed([embedding_text(e, {x.example_id: x for x in examples}) for e in entries]),
        )
        for lib, (entries, examples) in libraries.items()
    }
    from dataclasses import dataclass as _dc
    from dataclasses import field

    @_dc
    class Section:  # what the engine's search gives: the one section of web's docs, for any task
        text: str = "Use `web.Client` for everything."
        heading_path: list[str] = field(default_factory=lambda: ["Guide"])
        source: str = "web-docs"
        path: str = "guide.md"
        line_start: int = 1
        line_end: int = 3
        score: float = 0.4

    index = ApiIndex(
        libraries,
        vectors=vectors,
        embedder=lambda: embedder,
        docs_sources={"web": "web-docs"},
        section_search=lambda query, source: [Section()],
    )
    # "web" has documentation (one ranking more to score in) and examples whose words match
    # ("command line options"); the task is the other library's
    hits = index.find("define a command line option for my script", limit=4)
    assert (hits[0].library, hits[0].entry.api_id) == ("cli", "cli.option")
    hits = index.find("send a GET request to a URL", limit=4)
    assert (hits[0].library, hits[0].entry.api_id) == ("web", "web.get")
    # each result's signals are its ranks within its own library's rankings
    assert all(r is None or r <= 3 for h in hits for r in h.signals.values())


def test_nonsense_finds_nothing_even_when_its_letters_resemble_a_name() -> None:
    from docmentor.embeddings import LibraryVectors, get_embedder

    entries = [
        ApiEntry(api_id="web.ASGITransport", kind="class", name="ASGITransport",
                 docstring="A transport that sends requests straight to an ASGI app."),
        ApiEntry(api_id="web.get", kind="function", name="get", docstring="Send a GET request."),
    ]  # fmt: skip
    embedder = get_embedder()
    vectors = LibraryVectors(
        model=MODEL_ID,
        api_ids=[e.api_id for e in entries],
        matrix=embedder.embed([embedding_text(e, {}) for e in entries]),
    )
    index = ApiIndex({"web": (entries, [])}, vectors={"web": vectors}, embedder=lambda: embedder)
    assert index.find("asdf", limit=3) == [] and index.find("qwerty zxcv", limit=3) == []
    # a task with a word of the library still finds its API, and a paraphrase close enough does
    assert index.find("send a request to an asgi app", limit=1)[0].entry.api_id == "web.ASGITransport"


def test_a_library_without_vectors_beside_one_with_them_keeps_its_meaning_matches() -> None:
    from docmentor.embeddings import LibraryVectors, get_embedder

    libraries = _two_libraries()
    embedder = get_embedder()
    web, examples = libraries["web"]
    vectors = LibraryVectors(
        model=MODEL_ID, api_ids=[e.api_id for e in web],
        matrix=embedder.embed([embedding_text(e, {x.example_id: x for x in examples}) for e in web]),
    )  # fmt: skip
    index = ApiIndex(libraries, vectors={"web": vectors}, embedder=lambda: embedder)  # cli has none
    hits = index.find("retrieve a resource over HTTP", limit=6)
    assert hits and hits[0].library == "web"
    assert all(h.relevance > 0 for h in hits)  # nothing is listed at relevance 0


def test_a_task_to_write_my_own_one_weighs_the_librarys_extension_points_more() -> None:
    from docmentor.library.find.config import DEFAULT
    from docmentor.library.find.retrieval import ApiIndex

    EXTENSION_WEIGHT = DEFAULT.extension_weight
    from docmentor.library.models import ApiEntry

    def cls(name: str, description: str, *bases: str) -> ApiEntry:
        return ApiEntry(
            api_id=f"pkg.t.{name}", kind="class", name=name, description=description, bases=list(bases)
        )

    def method(owner: str, name: str, description: str) -> ApiEntry:
        return ApiEntry(api_id=f"pkg.t.{owner}.{name}", kind="method", name=name, parent=f"pkg.t.{owner}",
                        description=description)  # fmt: skip

    base = cls("BaseTransport", "Sends a request over the network layer.")
    entries = [
        base,
        method("BaseTransport", "handle_request", "Send a single request."),
        cls("HTTPTransport", "Sends a request over the network layer with a pool.", "BaseTransport"),
        method("HTTPTransport", "handle_request", "Send a single request."),
        cls("MockTransport", "Answers with canned responses.", "BaseTransport"),
        method("MockTransport", "handle_request", "Send a single request."),
        cls("Client", "Sends a request over the network layer for you."),
        *[cls(f"Other{i}", f"Something else, number {i}.") for i in range(8)],
    ]
    index = ApiIndex({"pkg": (entries, [])})
    assert {index.entries[i][1].api_id for i in index._extension} == {
        "pkg.t.BaseTransport", "pkg.t.BaseTransport.handle_request",
    }  # fmt: skip
    plain = _scores(index, "a class that sends a request over the network layer")
    own = _scores(index, "write my own class that sends a request over the network layer")
    ratio = own["pkg.t.BaseTransport"] / own["pkg.t.Client"]
    plain_ratio = plain["pkg.t.BaseTransport"] / plain["pkg.t.Client"]
    assert ratio == pytest.approx(EXTENSION_WEIGHT * plain_ratio, rel=0.02)
    # "its own", "their own", "is a subclass of": no implementation asked for
    for asked in ("a client with its own class that sends a request over the network layer",
                  "is a subclass of the class that sends a request over the network layer"):  # fmt: skip
        theirs = _scores(index, asked)
        assert theirs["pkg.t.BaseTransport"] / theirs["pkg.t.Client"] < ratio, asked


def test_a_task_no_api_comes_close_to_is_said_to_be_a_weak_match(engine: Docmentor, tmp_path: Path) -> None:
    """The answer warns when the library's closest API description is below WEAK_MATCH:
    relevance is relative to the best result, so junk first is 1.0 too."""
    knowledge = LibraryKnowledge(engine, cwd=tmp_path)
    near = knowledge.find_api("insert rows into a table").to_dict()
    # "table" is the library's word: the words find something, and it is said to be far
    far = knowledge.find_api("resize a photograph of the table into a small thumbnail picture").to_dict()
    assert not [w for w in near["warnings"] if "close to this task" in w]
    assert far["results"]
    (warning,) = [w for w in far["warnings"] if "close to this task" in w]
    assert warning.startswith("no API of minidb is close to this task (best similarity 0.")
    assert warning.endswith("these are the nearest it has")  # not "by words": meaning found some


def test_a_library_without_vectors_beside_one_with_them_is_not_outweighed_by_a_weak_cosine() -> None:
    """One knowledge base generated with --no-embeddings beside one with them: the other's
    weak best cosine counted as full marks against the unembedded one's words (a tour: "print
    colored text" gave httpx's Response.encoding and no click API)."""
    from docmentor.embeddings import LibraryVectors, get_embedder

    web = [
        ApiEntry(
            api_id="web.Response.text",
            kind="property",
            name="text",
            docstring="Text of the response body; print it or parse it.",
        ),
        ApiEntry(
            api_id="web.Response.encoding",
            kind="property",
            name="encoding",
            docstring="The encoding used to decode the response body into text.",
        ),
        ApiEntry(
            api_id="web.iter_text",
            kind="function",
            name="iter_text",
            docstring="Iterate over the decoded text of a response, a chunk of text at a time.",
        ),
        ApiEntry(api_id="web.get", kind="function", name="get", docstring="Send a GET request."),
    ]
    cli = [
        ApiEntry(api_id="cli.style", kind="function", name="style",
                 docstring="Style a string with ANSI colors, bold or underline for the terminal."),
        ApiEntry(api_id="cli.echo", kind="function", name="echo", docstring="Print a message or text."),
        ApiEntry(api_id="cli.option", kind="function", name="option", docstring="Attach an option to a command."),
    ]  # fmt: skip
    libraries: dict[str, tuple[list[ApiEntry], list[Example]]] = {"web": (web, []), "cli": (cli, [])}
    embedder = get_embedder()
    vectors = {  # the web library's knowledge base has vectors, the cli library's has none
        "web": LibraryVectors(
            model=MODEL_ID,
            api_ids=[e.api_id for e in web],
            matrix=embedder.embed([embedding_text(e, {}) for e in web]),
        )
    }
    index = ApiIndex(libraries, vectors=vectors, embedder=lambda: embedder)
    report: dict[str, Any] = {}
    hits = index.find("print colored text", limit=3, report=report)
    assert hits[0].library == "cli", [(h.library, h.entry.api_id) for h in hits]
    assert report["unembedded"] == ["cli"]
    hits = index.find("send a GET request", limit=3)
    assert (hits[0].library, hits[0].entry.api_id) == ("web", "web.get")
    # scoped to one library, nothing is said about it
    scoped: dict[str, Any] = {}
    index.find("print colored text", limit=3, library="cli", report=scoped)
    assert "unembedded" not in scoped
