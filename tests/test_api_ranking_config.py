"""find_api's and get_examples' ranking constants: one typed config, passed in.

Every constant of ``docmentor.library.find.config.ApiRankingConfig`` carries its reason and
the task sets it was measured on; the service, the index, the mention resolver, the BM25F
fields, the fusion and the priors read the config they are given (no module constant to
patch). The service tests run on the fixture library (tests/fixtures/readme_lib) generated
into a real index.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from docmentor.engine import Docmentor
from docmentor.library import generate
from docmentor.library.find.bm25f import BM25Field
from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.find.fusion import fuse
from docmentor.library.find.priors import mirrored, secondary
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.knowledge.mentions import MentionResolver
from docmentor.library.models import ApiEntry
from docmentor.library.service.service import LibraryKnowledge

LIB = Path(__file__).parent / "fixtures" / "readme_lib"


def test_every_constant_has_its_reason_and_the_sets_it_was_measured_on() -> None:
    described = ApiRankingConfig.describe()
    names = [d["name"] for d in described]
    assert names == [f.name for f in dataclasses.fields(ApiRankingConfig)]
    assert {"rrf_k", "attribute_weight", "twin_weight", "uses_weight", "weak_match", "failed_penalty"} <= set(
        names
    )
    for d in described:
        assert d["why"].strip() and d["measured_on"].strip(), d["name"]
        assert d["value"] == getattr(DEFAULT, d["name"])
    assert ApiRankingConfig() == DEFAULT
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.rrf_k = 10  # type: ignore[misc]
    changed = DEFAULT.replace(twin_weight=1.0)
    assert changed.twin_weight == 1.0 and DEFAULT.twin_weight == 0.5
    assert DEFAULT.field_weights() == {"name": 2.0, "signature": 0.5, "doc": 1.5}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Docmentor]:
    tmp = tmp_path_factory.mktemp("ranking-config")
    lib = tmp / "lib"
    shutil.copytree(LIB, lib, ignore=shutil.ignore_patterns("__pycache__"))
    eng = Docmentor(tmp / "index", embeddings=True)  # find_api by meaning too (the tests' env says 0)
    generate(eng, library="minidb", docs_path=lib / "docs", out=tmp / "out", search_paths=[lib])
    yield eng
    eng.close()


def test_the_service_ranks_with_the_config_it_is_given(engine: Docmentor, tmp_path: Path) -> None:
    task = "insert rows into a table"
    plain = LibraryKnowledge(engine, cwd=tmp_path)
    assert plain.index().config is DEFAULT
    default = plain.find_api(task, max_results=5).to_dict()
    assert default["results"][0]["api_id"] == "minidb.core.Database.insert"
    assert len(default["results"]) == 5
    # each ranking contributing its best one only: at most one result per ranking
    shallow = DEFAULT.replace(depth=1)
    knowledge = LibraryKnowledge(engine, cwd=tmp_path, ranking=shallow)
    assert knowledge.index().config is shallow
    few = knowledge.find_api(task, max_results=5).to_dict()["results"]
    assert 1 <= len(few) <= 3 and few[0]["api_id"] == "minidb.core.Database.insert"
    # the weak-match warning reads the config's threshold (no API is within cosine 1.01)
    assert not any("is close to this task" in w for w in default["warnings"])
    strict = LibraryKnowledge(engine, cwd=tmp_path, ranking=DEFAULT.replace(weak_match=1.01))
    warnings = strict.find_api(task, max_results=5).to_dict()["warnings"]
    assert any("no API of minidb is close to this task" in w for w in warnings)


def test_get_examples_reads_the_config(engine: Docmentor, tmp_path: Path) -> None:
    task = "insert rows into a table"
    found = LibraryKnowledge(engine, cwd=tmp_path).get_examples(task, limit=5).to_dict()["examples"]
    assert found
    # nothing scores 100: with that floor no example is an answer
    none = LibraryKnowledge(engine, cwd=tmp_path, ranking=DEFAULT.replace(min_example_score=100.0))
    assert none.get_examples(task, limit=5).to_dict()["examples"] == []
    # a named API's examples first, by named_weight: at 0 they rank by the task alone
    named = LibraryKnowledge(engine, cwd=tmp_path).get_examples(
        "", apis_involved=["minidb.core.Database.query"], limit=5
    )
    assert named.examples and all("minidb.core.Database.query" in e.apis_used for e in named.examples[:1])
    unnamed = LibraryKnowledge(engine, cwd=tmp_path, ranking=DEFAULT.replace(named_weight=0.0))
    scores = [
        e.relevance for e in unnamed.get_examples("", apis_involved=["minidb.core.Database.query"]).examples
    ]
    assert all(s < min(e.relevance for e in named.examples) for s in scores)


def _class(name: str, *members: str) -> list[ApiEntry]:
    cls = ApiEntry(api_id=f"pkg._m.{name}", aliases=[f"pkg.{name}"], kind="class", name=name)
    return [cls] + [
        ApiEntry(api_id=f"pkg._m.{name}.{m}", kind="method", name=m, parent=cls.api_id) for m in members
    ]


@dataclass
class Section:
    text: str
    heading_path: list[str] = field(default_factory=lambda: ["Guide"])
    source: str = "docs"
    path: str = "guide.md"
    line_start: int = 1
    line_end: int = 5


def test_the_mention_resolver_credits_and_resolves_by_its_config() -> None:
    entries = [*_class("Reader", "read_all"), *_class("Writer", "read_all"), *_class("Stream", "read_all")]
    text = "Call `read_all` to get everything, or `Reader.read_all()`."
    default = MentionResolver(entries)
    assert default.resolve("read_all") == {f"pkg._m.{c}.read_all" for c in ("Reader", "Writer", "Stream")}
    assert default.section_apis(Section(text))["pkg._m.Reader.read_all"] == DEFAULT.uses_weight
    strict = MentionResolver(entries, config=DEFAULT.replace(max_candidates=2, uses_weight=0.25))
    assert strict.resolve("read_all") == set()  # three candidates: too ambiguous now
    assert strict.section_apis(Section(text)) == {"pkg._m.Reader.read_all": 0.25}
    documented = Section(".. autoclass:: pkg.Reader\n\nReads.")
    assert MentionResolver(entries, config=DEFAULT.replace(documents_weight=0.5)).section_apis(
        documented
    ) == {"pkg._m.Reader": 0.5}


def test_bm25_parameters_come_from_the_config() -> None:
    short, long = ["cache"], ["cache", *(f"w{i}" for i in range(20))]
    scores = {}
    for b in (DEFAULT.bm25_b, 0.0):
        f = BM25Field(b=b)
        for doc in (short, long, ["other"]):
            f.add(doc)
        f.freeze()
        out = np.zeros(3)
        f.add_scores([("cache", 1.0)], out, 1.0)
        scores[b] = out
    assert scores[DEFAULT.bm25_b][0] > scores[DEFAULT.bm25_b][1]  # the longer document normalised down
    assert scores[0.0][0] == pytest.approx(scores[0.0][1])  # no length normalisation
    entries = _class("Reader", "read_all")
    index = ApiIndex({"pkg": (entries, [])}, config=DEFAULT.replace(bm25_k1=2.0, bm25_b=0.0))
    assert {(f.k1, f.b) for _, _, f in index.text.shards} == {(2.0, 0.0)}
    assert {(f.k1, f.b) for _, _, f in index.example_field.shards} == {(2.0, 0.0)}


def test_fusion_and_priors_read_the_config() -> None:
    rankings = {"a": [(0, 1.0), (1, 0.5)], "b": [(1, 1.0)]}
    assert fuse(rankings) == pytest.approx({0: 1.0 / 41, 1: 0.5 / 42 + 1.0 / 41})
    assert fuse(rankings, DEFAULT.replace(rrf_k=0, depth=1)) == pytest.approx({0: 1.0, 1: 1.0})
    # each of find_api's three rankings counts × its own weight (another ranking × 1)
    named = {"lexical": [(0, 1.0)], "sections": [(1, 1.0)], "semantic": [(2, 1.0)], "other": [(3, 1.0)]}
    weighted = DEFAULT.replace(
        rrf_k=0, lexical_fusion_weight=1.0, sections_fusion_weight=0.5, semantic_fusion_weight=2.0
    )
    assert fuse(named, weighted) == pytest.approx({0: 1.0, 1: 0.5, 2: 2.0, 3: 1.0})
    words = ["parse", "dump", "copy", "load", "merge", "split", "check", "build", "clear", "close"]
    root = [ApiEntry(api_id=f"pkg._c.{w}", aliases=[f"pkg.{w}"], kind="function", name=w) for w in words]
    compat = [ApiEntry(api_id=f"pkg.compat.{w}", kind="function", name=w) for w in words]
    assert mirrored([*root, *compat], "pkg") == {e.api_id for e in compat}
    more = DEFAULT.replace(mirror_min_names=11)
    assert mirrored([*root, *compat], "pkg", more) == set()
    # the copies are still off the root's path (unreached), whatever the mirror rule says
    assert secondary([*root, *compat], "pkg", more) == {e.api_id for e in compat}


def test_what_is_embedded_reads_the_config() -> None:
    from docmentor.library.find.api_text import embedding_text, passage_texts
    from docmentor.library.models import ApiParameter

    entry = ApiEntry(
        api_id="pkg._c.Client.send",
        aliases=["pkg.Client.send"],
        kind="method",
        name="send",
        description="Send a request.",
        docstring="Send a request.\n\nThe request is sent over the pooled connection of this client.\n\n"
        "Redirects are followed when the client was made to follow them.",
        parameters=[ApiParameter(name="timeout", description="Seconds to wait for the server.")],
    )
    texts = passage_texts(entry)
    assert len(texts) == 3 and texts[-1] == "pkg.Client.send: timeout: Seconds to wait for the server."
    assert len(passage_texts(entry, DEFAULT.replace(passage_min_chars=63))) == 2  # one paragraph too short
    assert len(passage_texts(entry, DEFAULT.replace(passage_paragraphs=1))) == 2
    assert len(passage_texts(entry, DEFAULT.replace(max_passages=1))) == 1
    assert all(len(t) <= 20 for t in passage_texts(entry, DEFAULT.replace(passage_chars=20)))
    whole = embedding_text(entry, {})
    assert whole.startswith("pkg.Client.send (send) method. Send a request.")
    assert embedding_text(entry, {}, DEFAULT.replace(embedded_chars=15)) == whole[:15]
