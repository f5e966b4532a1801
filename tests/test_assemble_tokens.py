"""Token counting (assemble/tokens.py, assemble/bpe.py): bpe.py counts exactly what toktok counts.

Every comparison is with toktok itself — its counts, or its token ids decoded to bytes — on
the documentation slices the tests hold (tests/fixtures), on every class of character, and on random text; and the vocabulary
cache file is checked for what happens when it is missing, stale, damaged or unwritable.
"""

from __future__ import annotations

import array
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
import toktok
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docmentor import assemble_context
from docmentor.assemble import bpe, tokens
from docmentor.engine import Docmentor

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"  # documentation slices and documents written for the tests
LIGHT = bpe.ENCODINGS  # the encodings bpe.py counts


@pytest.fixture(scope="module", params=LIGHT)
def counter(request: pytest.FixtureRequest) -> bpe.Counter:
    encoding = request.param
    data = bpe.build(encoding, toktok._encoding(encoding).token_byte_values(), "test")
    return bpe.Counter(encoding, bpe.load(data, encoding, "test"))


def toktok_tokens(texts: list[str], encoding: str) -> list[list[bytes]]:
    tok = toktok._encoding(encoding)
    values = tok.token_byte_values()
    flat, offsets = tok.encode_batch(texts)
    ids, at = array.array("I", flat), array.array("q", offsets)
    return [[values[i] for i in ids[at[k] : at[k + 1]]] for k in range(len(texts))]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """tokens.py as in a new process, with an empty cache folder (DOCMENTOR_HOME/cache);
    yields the encodings toktok was asked to count."""
    monkeypatch.delenv("DOCMENTOR_CACHE", raising=False)
    monkeypatch.setattr(tokens, "_counters", {})
    monkeypatch.setattr(tokens, "_files", {})
    monkeypatch.setattr(tokens, "_toktok_loaded", set())
    asked: list[str] = []
    real = tokens._toktok_count

    def spy(texts: list[str], encoding: str, size: int) -> list[int]:
        asked.append(encoding)
        return real(texts, encoding, size)

    monkeypatch.setattr(tokens, "_toktok_count", spy)
    yield asked


def forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A next process: nothing loaded, the cache file as it is on disk."""
    for name, value in (("_counters", {}), ("_files", {}), ("_toktok_loaded", set())):
        monkeypatch.setattr(tokens, name, value)


# ----------------------------------------------------------------------------- exactness


def corpus_texts() -> list[str]:
    files = sorted(
        p
        for p in FIXTURES.rglob("*")
        if p.is_file() and p.suffix in {".md", ".mdx", ".rst", ".txt", ".py", ".ts", ".rs"}
    )
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    sections = [s for t in texts for s in t.split("\n#")]  # roughly the indexed sections
    lines = [line for t in texts[:40] for line in t.splitlines(keepends=True)]
    return texts + sections + lines


def test_counts_equal_toktok_on_the_fixture_documents(counter: bpe.Counter) -> None:
    texts = corpus_texts()
    assert len(texts) > 3000
    assert counter.count_many(texts) == toktok.batch_count(texts, counter.encoding)


def test_tokens_equal_toktok_around_every_class_of_character(counter: bpe.Counter) -> None:
    """Token bytes, not only counts, for a spread of every character bpe.py vouches for.

    A character in the wrong class would split a piece elsewhere than toktok does. Taking all
    of them (237,091, ×9 contexts) agrees too but takes ~15 s per encoding; here every 11th.
    """
    chars = [chr(c) for c in range(128, 0x110000, 11) if bpe.class_string(chr(c)) != bpe._UNSAFE]
    chars += [chr(c) for c in range(128)]
    assert len(chars) > 20_000
    for template in ("a{0}b", "A{0}'s", " {0}1", "{0}{0} x", "1{0}\n/", "\t{0}'T"):
        probes = [template.format(c) for c in chars]
        expected = toktok_tokens(probes, counter.encoding)
        wrong = [p for p, e in zip(probes, expected, strict=True) if counter.tokens(p) != e]
        assert not wrong, [(p, [hex(ord(c)) for c in p]) for p in wrong[:5]]


def test_lines_counted_apart_add_up(counter: bpe.Counter) -> None:
    """count_many sums lines cut after a newline: every ASCII character on both sides of the cut."""
    ascii_ = [chr(c) for c in range(128)]
    texts = [
        f"{pre}{a}\n{b}{post}"
        for a in ascii_
        for b in ascii_
        for pre, post in (("x", "y"), (" *", "/\n"))
        if a.isprintable() or b.isprintable()
    ]
    texts += [f"{a}{ws}\n{b}z" for a in "a.*/ " for ws in ("", " ", "\t", "  \n", "\r") for b in ascii_]
    assert counter.count_many(texts) == toktok.batch_count(texts, counter.encoding)


TRICKY = [
    "",
    "hello",
    "DON'T stop'S we'LL 'Re 'd",
    "can't\nwon't\r\n'S",
    "  \n\n  x",
    "abc   ",
    "trailing\n\n\n",
    "   ",
    "\r\n\r\n",
    "x \t \n y",
    "a\u00a0b\u2003c\u3000d\u2028e\u2029f\x85g",
    "\x1c\x1d\x1e\x1ffoo\x0b\x0cbar\x7f",
    "*\n/ comment /*\n/",
    "|---|:--:|---|",
    "12345678901 1,000,000 3.14159 ½ ² ٣٤٥ Ⅻ",
    "café naïve Ünïcödé ǅemo Ǆ ß ﬁ ÅNGSTRÖM",
    "e\u0301t\u00e9 n\u0303 a\u0308\u0301 \u0301\u0301x",
    "中文字符 한국어 ひらがな カタカナ ไทย Ελληνικά русский עברית العربية हिन्दी",
    "🧠🚀 👍🏽 ✅ →← 🇫🇷 👨‍👩‍👧",
    "def f(x):\n    return x ** 2  # comment\n\n\tif a:\n\t\tpass\n",
    "https://example.com/a/b?c=d&e=f#g iVBORw0KGgoAAAANSUhEUgAA==",
    "=" * 300 + "\n" + " " * 500 + "x" + "-|" * 400,
    "<|endoftext|> <|endofprompt|> special tokens count as text",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts(counter: bpe.Counter, text: str) -> None:
    assert counter.count_many([text]) == toktok.batch_count([text], counter.encoding)
    assert counter.tokens(text) == toktok_tokens([text], counter.encoding)[0]


ALPHABET = st.sampled_from(
    list("aZ09 '\"sStTdDmMlLvVeErR\n\r\t/_-.,;:!?#*|()[]{}<>=+`~\\")
    + list("\u00a0\u2003\u3000\x85\x0b\x0c\x1c\u2028")
    + list("éÉßǅﬁñÑøΩωЖжאبह中ひカ한ไ\u0301\u0308\u20e3٣½²Ⅻ🧠👍🏽🇫‍️—…’“€→✅")
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(ALPHABET, max_size=40), min_size=1, max_size=5).map("".join))
def test_random_text_counts_equal_toktok(counter: bpe.Counter, text: str) -> None:
    assert counter.count_many([text]) == toktok.batch_count([text], counter.encoding)


@pytest.mark.parametrize(
    "char",
    [
        "\u00aa",  # ª: Ll in Unicode 3.2, Lo now
        "\u200b",  # zero width space: Zs in 3.2, Cf now
        "\u017f",  # ſ: folds to s, so "'ſ" is a contraction to (?i)
        "\u0378",  # unassigned
        "\U0002b740",  # a CJK ideograph added after 3.2
        "\ud800",  # a lone surrogate
    ],
)
def test_declines_characters_it_cannot_vouch_for(counter: bpe.Counter, char: str, fresh: list[str]) -> None:
    text = f"it's {char} here"
    assert counter.count_many(["plain", text]) is None
    assert counter.tokens(text) is None
    if unicodedata.category(char) != "Cs":  # toktok cannot take a lone surrogate either
        assert tokens.count_many(["plain", text], counter.encoding) == toktok.batch_count(
            ["plain", text], counter.encoding
        )


def test_characters_moved_within_one_class_since_unicode_3_2_count_as_toktok_counts(
    counter: bpe.Counter,
) -> None:
    # ・ (Pc then, Po now), digits now "other numbers", marks now spacing, format characters
    # added since: the patterns see the same class either way, so bpe.py counts them
    moved = [
        chr(c)
        for c in range(128, 0x110000)
        if unicodedata.category(chr(c)) not in ("Cn", "Cs")
        and unicodedata.ucd_3_2_0.category(chr(c)) != unicodedata.category(chr(c))
        and bpe.class_string(chr(c)) != "\uffff"
    ]
    assert "\u30fb" in moved and len(moved) > 40
    texts = [t for c in moved for t in (f"it's {c} here", c * 3, f"a{c}b {c}1")]
    assert counter.count_many(texts) == toktok.batch_count(texts, counter.encoding)


def test_very_long_pieces_go_to_toktok(counter: bpe.Counter) -> None:
    assert counter.count_many(["x" + "=" * 5000]) is None
    assert counter.count_many(["=" * 4000]) == toktok.batch_count(["=" * 4000], counter.encoding)


# ----------------------------------------------------------------------------- the cache file


def test_first_call_writes_the_cache_then_processes_read_it(
    fresh: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "Exact counts: naïve café, 日本語, emoji 🙂."
    path = tokens.cache_path("o200k_base")
    assert not path.exists()
    assert tokens.count_tokens(text) == toktok.batch_count([text], "o200k_base")[0]
    assert fresh == ["o200k_base"] and path.is_file()  # toktok loaded once, to derive the file
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
    assert tokens.count_tokens(text) == toktok.batch_count([text], "o200k_base")[0]
    assert fresh == ["o200k_base", "o200k_base"]  # toktok is loaded now: it goes on counting

    forget(monkeypatch)
    fresh.clear()
    assert tokens.count_many([text, "", text * 3]) == toktok.batch_count([text, "", text * 3], "o200k_base")
    assert tokens.count_tokens(text, "cl100k_base") == toktok.batch_count([text], "cl100k_base")[0]
    assert fresh == ["cl100k_base"]  # o200k_base from its file; cl100k_base had none yet
    assert tokens.cache_path("cl100k_base").is_file()


def test_prepare_writes_the_file_ahead(fresh: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert tokens.prepare("cl100k_base") and tokens.cache_path("cl100k_base").is_file()
    assert tokens.prepare("cl100k_base")  # already there
    assert not tokens.prepare("qwen3.5") and not tokens.cache_path("qwen3.5").exists()
    forget(monkeypatch)
    assert tokens.count_tokens("hello world", "cl100k_base") == 2
    assert fresh == []


def test_other_encodings_and_large_batches_use_toktok(fresh: list[str]) -> None:
    assert tokens.count_many(["hello world"], "o200k_harmony") == [2]
    assert tokens.count_many(["hello world"], "qwen3.5") == toktok.batch_count(["hello world"], "qwen3.5")
    assert fresh == ["o200k_harmony", "qwen3.5"]
    assert not tokens.cache_path("o200k_harmony").exists()
    big = ["word " * 250_000]
    assert tokens.count_many(big) == toktok.batch_count(big, "o200k_base")
    assert fresh[-1] == "o200k_base" and not tokens.cache_path("o200k_base").exists()


def test_a_process_that_counted_a_lot_moves_to_toktok(
    fresh: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens.count_tokens("warm up")  # derives the file
    forget(monkeypatch)
    monkeypatch.setattr(tokens, "_LIGHT_CHARS", 1000)
    fresh.clear()
    text = "x y z " * 100
    for _ in range(3):
        assert tokens.count_tokens(text) == toktok.batch_count([text], "o200k_base")[0]
    assert fresh == []  # a text seen before is free
    for n in range(3):
        text = f"{n} x y z" * 100
        assert tokens.count_tokens(text) == toktok.batch_count([text], "o200k_base")[0]
    assert fresh == ["o200k_base", "o200k_base"]  # 600 + 700 new characters: the rest goes to toktok


def damage_body(data: bytes) -> bytes:
    out = bytearray(data)
    out[len(out) // 2] ^= 0xFF
    return bytes(out)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda d: b"",
        lambda d: d[:100],
        lambda d: d[:-1],
        lambda d: d + b"\0",
        damage_body,
        lambda d: b"DMBPE\x00\r\n" + b"\xff" * 64,
        lambda d: bytes(64),
    ],
    ids=["empty", "header-only", "short", "long", "flipped-byte", "garbage-header", "zeros"],
)
def test_a_damaged_cache_is_rebuilt(fresh: list[str], monkeypatch: pytest.MonkeyPatch, spoil) -> None:  # type: ignore[no-untyped-def]
    text = "The retry policy: 3 attempts, exponential back-off — see ADR-0002."
    tokens.count_tokens(text)
    path = tokens.cache_path("o200k_base")
    good = path.read_bytes()
    path.write_bytes(spoil(good))
    forget(monkeypatch)
    fresh.clear()
    assert tokens.count_tokens(text) == toktok.batch_count([text], "o200k_base")[0]
    assert fresh == ["o200k_base"]
    assert path.read_bytes() == good  # rebuilt, the same bytes


def test_a_stale_cache_is_rebuilt(fresh: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    tokens.count_tokens("hello")
    path = tokens.cache_path("o200k_base")
    other = bpe.build("o200k_base", toktok._encoding("o200k_base").token_byte_values(), "toktok-rs 0.0.1")
    with pytest.raises(bpe.CacheError, match="another"):
        bpe.load(other, "o200k_base", tokens._source())
    with pytest.raises(bpe.CacheError, match="another"):
        bpe.load(path.read_bytes(), "cl100k_base", tokens._source())
    path.write_bytes(other)
    forget(monkeypatch)
    assert tokens.count_tokens("hello") == 1
    bpe.load(path.read_bytes(), "o200k_base", tokens._source())  # rebuilt for this toktok


def test_a_bad_bucket_falls_back_and_discards_the_file(
    fresh: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens.count_tokens("hello")
    forget(monkeypatch)
    path = tokens.cache_path("o200k_base")

    def bad_load(data: bytes, encoding: str, source: str):  # type: ignore[no-untyped-def]
        def rank(token: bytes) -> int | None:
            raise bpe.CacheError("bad bucket 7")

        return rank

    monkeypatch.setattr(bpe, "load", bad_load)
    fresh.clear()
    assert tokens.count_tokens("hello world") == 2
    assert fresh == ["o200k_base"] and not path.exists()


def test_unwritable_home_still_counts(
    fresh: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("DOCMENTOR_HOME", str(blocker))
    assert tokens.count_tokens("hello world") == 2
    assert fresh == ["o200k_base"]
    assert blocker.read_text() == "x"


def test_no_cache_when_it_would_count_differently(fresh: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bpe.Counter, "count_many", lambda self, texts: [0] * len(texts))
    assert tokens.count_tokens("hello world") == 2
    path = tokens.cache_path("o200k_base")
    assert not path.exists() and list(path.parent.iterdir()) == []


def test_probe_covers_every_class_and_is_counted_by_bpe() -> None:
    classes = set(bpe.class_string(tokens._PROBE))
    assert bpe._UNSAFE not in classes
    for stand_in in (bpe._UPPER, bpe._LOWER, bpe._LETTER, bpe._MARK, bpe._NUMBER, bpe._SPACE, bpe._OTHER):
        assert stand_in in classes


# ----------------------------------------------------------------------------- assembly


def test_assembly_with_a_warm_cache_never_loads_toktok(
    fresh: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What one CLI call does once the cache exists: the same digest, toktok untouched."""
    engine = Docmentor(tmp_path / "db")
    engine.add(str(FIXTURES / "httpx"), name="httpx")
    query = "how do I set a timeout on a connection pool"
    by_toktok = assemble_context(engine, query, max_tokens=4000)
    assert set(fresh) == {"o200k_base"}  # derived the file, then counted with toktok
    forget(monkeypatch)
    fresh.clear()
    by_bpe = assemble_context(engine, query, max_tokens=4000)
    assert fresh == []
    assert (
        by_bpe.actual_tokens
        == by_toktok.actual_tokens
        == toktok.batch_count([by_bpe.markdown], "o200k_base")[0]
    )
    strip = lambda md: "\n".join(line for line in md.splitlines() if not line.startswith("**Generated"))  # noqa: E731
    assert strip(by_bpe.markdown) == strip(by_toktok.markdown)
    engine.close()
