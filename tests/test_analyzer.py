"""The analyzer: code-aware terms, stopwords, folding, query weights."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docmentor.search.analyzer import PART_WEIGHT, WHOLE_WEIGHT, analyze, analyze_query, compound_terms
from docmentor.search.stopwords import CODE_WORDS, STOPWORDS


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("max_connections", ["maxconnections", "max", "connect"]),
        ("maxConnections", ["maxconnections", "max", "connect"]),
        ("MAX_CONNECTIONS", ["maxconnections", "max", "connect"]),
        ("create_fts_index()", ["createftsindex", "creat", "fts", "index"]),
        ("createFtsIndex", ["createftsindex", "creat", "fts", "index"]),
        ("HTTPXClient", ["httpxclient", "httpx", "client"]),
        (
            "httpx.AsyncClient",
            ["httpx.asyncclient", "httpxasyncclient", "asyncclient", "httpx", "async", "client"],
        ),
        ("std::vector", ["std.vector", "stdvector", "std", "vector"]),
        ("__init__", ["init"]),
    ],
)
def test_identifiers_give_compact_form_and_parts(text: str, terms: list[str]) -> None:
    assert analyze(text) == terms


@pytest.mark.parametrize(
    ("query", "document", "shared"),
    [
        ("maxConnections", "Set max_connections=20 on the pool.", "maxconnections"),
        ("max_connections", "createClient({ maxConnections: 20 })", "maxconnections"),
        ("max connections", "the max_connections setting", "maxconnections"),
        ("createFtsIndex", "call create_fts_index() first", "createftsindex"),
        ("AsyncClient", "use httpx.AsyncClient as a context manager", "asyncclient"),
        ("async client", "use httpx.AsyncClient as a context manager", "asyncclient"),
        ("base url", "pass base_url= to the client", "baseurl"),
        ("HTTPX client", "an HTTPXClient instance", "httpxclient"),
    ],
)
def test_one_form_of_an_identifier_finds_the_other(query: str, document: str, shared: str) -> None:
    assert shared in dict(analyze_query(query))
    assert shared in analyze(document)


def test_stopwords_are_dropped_but_code_words_kept() -> None:
    terms = analyze("The client is not ready: call it with a timeout, or get the None value")
    assert "the" not in terms
    assert "a" not in terms
    assert "or" not in terms
    for kept in ("is", "not", "with", "get", "none", "client", "readi", "timeout"):
        assert kept in terms, kept
    assert {"get", "set", "with", "not", "from", "none", "true", "async", "import"} <= CODE_WORDS
    assert not (STOPWORDS & CODE_WORDS)
    # inside an identifier a stopword is a part like any other
    assert analyze("the_answer") == ["theanswer", "the", "answer"]


def test_words_are_stemmed_but_identifiers_are_not() -> None:
    assert analyze("connections connecting connected") == ["connect", "connect", "connect"]
    assert analyze("keepalive_connections")[0] == "keepaliveconnections"


def test_accents_are_folded_and_other_scripts_kept() -> None:
    assert analyze("Café CRÈME naïve résumé ÅNGSTRÖM") == ["cafe", "creme", "naiv", "resum", "angstrom"]
    assert analyze("cafe\u0301") == ["cafe"]  # decomposed é
    assert analyze("délai d'attente") == analyze("delai d'attente")
    # Chinese and Japanese: runs kept whole (3+) and as character pairs
    assert analyze("连接池 配置") == ["连接池", "连接", "接池", "配置"]
    assert analyze("接続プール")[0] == "接続プール"  # a kana's sound mark is not an accent
    assert "プー" in analyze("接続プール")
    assert analyze("Ёлка йод") == ["ёлка", "йод"]  # nor is й's breve
    assert analyze("हिन्दी भाषा") == ["हिन्दी", "भाषा"]  # vowel signs stay in the word
    assert analyze("ｍａｘ＿ｃｏｎｎｅｃｔｉｏｎｓ") == analyze("max_connections")  # full-width forms


def test_query_terms_carry_weights() -> None:
    q = analyze_query("timeout")
    assert q == [("timeout", 1.0)]
    ident = dict(analyze_query("httpx.get"))
    assert set(ident) == {"httpx.get", "httpxget", "httpx", "get"}
    # the identifier's whole forms count most; its parts share about half a word
    assert ident["httpx.get"] == ident["httpxget"] == pytest.approx(WHOLE_WEIGHT)
    assert ident["httpx"] == ident["get"] == pytest.approx(PART_WEIGHT / 2)
    both = dict(analyze_query("configure max_connections"))
    assert both["configur"] == 1.0
    assert both["maxconnections"] == pytest.approx(WHOLE_WEIGHT)
    assert both["max"] + both["connect"] == pytest.approx(PART_WEIGHT)
    # adjacent words also ask for their compact form, at a lower weight
    assert dict(analyze_query("time out"))["timeout"] == 0.5


def test_a_compound_the_index_holds_counts_as_a_word() -> None:
    held = {"timeout", "databas"}
    q = dict(analyze_query("make requests never time out", held.__contains__))
    assert q["timeout"] == 1.0
    assert q["time"] == 1.0  # the split words keep their weight
    assert q["request"] == 1.0
    # in the form the index holds it: "database" is stemmed
    q = dict(analyze_query("reset the data base", held.__contains__))
    assert q["databas"] == 1.0 and "database" not in q
    # one the index does not hold stays a weak guess; stopwords never join
    assert dict(analyze_query("base url", held.__contains__))["baseurl"] == 0.5
    assert "outthe" not in dict(analyze_query("time out the door", lambda t: True))


def test_question_noise_is_dropped_from_sentences_only() -> None:
    sentence = dict(analyze_query("How do I set a timeout for a request?"))
    assert {"set", "timeout", "request"} <= set(sentence)
    assert "for" not in sentence
    assert "do" not in sentence
    short = dict(analyze_query("is not"))
    assert {"is", "not"} <= set(short)  # a short query of function words searches them


def test_query_and_index_agree() -> None:
    text = "Pass timeout=None to httpx.Client; see HTTPXClient and max_keepalive_connections."
    index_terms = set(analyze(text))
    for term, weight in analyze_query(text):
        assert weight > 0
        assert term in index_terms or weight == 0.5, term  # 0.5: a joined pair of words


@pytest.mark.parametrize("text", ["", "   ", "?!...;", "🚀🎉", "\x00\x01", "—–·•"])
def test_nothing_to_search(text: str) -> None:
    assert analyze(text) == []
    assert analyze_query(text) == []


_CODEY = st.text(alphabet=st.sampled_from(list("aZ_.:->()9 éß连🚀\u0301\u093f\n\t`'\"")), max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(st.text(max_size=200), _CODEY))
def test_analyzer_never_raises(text: str) -> None:
    terms = analyze(text)
    assert all(t and " " not in t and t == t.lower() for t in terms)
    pairs = analyze_query(text)
    assert all(isinstance(t, str) and t and w > 0 for t, w in pairs)
    assert len({t for t, _ in pairs}) == len(pairs)


@given(st.text(alphabet=st.characters(max_codepoint=0x7F, categories=["L"]), min_size=1, max_size=12))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_the_plain_word_fast_path_gives_the_general_forms(word: str) -> None:
    from docmentor.search.analyzer import _token_forms, token_forms

    assert token_forms(word) == _token_forms(word)


@given(st.text(max_size=300))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_joined_index_terms_are_the_analyzed_terms(text: str) -> None:
    from docmentor.search.analyzer import analyze_joined

    assert analyze_joined(text, 5) == " ".join(t[:5] for t in analyze(text))


def test_marks_are_looked_for_only_among_non_ascii_characters() -> None:
    from docmentor.search.analyzer import _token_re, _tokens

    text = "plain words, then हिन्दी and café ñ"
    assert _tokens(text) == _token_re().findall(text)
    assert _tokens("just ascii_words.here 1.2.3") == ["just", "ascii_words.here", "1.2.3"]


def test_a_word_inside_a_chinese_or_japanese_run_is_found() -> None:
    index = set(analyze("中文内容 日本語の見出し Python中文"))
    for query in ("中文", "内容", "日本語", "見出し", "python 中文"):
        assert {t for t, _ in analyze_query(query)} & index, query
    assert analyze("한국어 단어") == ["한국어", "단어"]  # Korean separates words with spaces


def test_chinese_query_terms_weigh_as_words_and_come_after_the_others() -> None:
    from docmentor.search import analyzer

    q = analyze_query("如何设置超时时间 httpx")
    terms = [t for t, _ in q]
    assert terms[0] == "httpx" and dict(q)["httpx"] == 1.0  # not drowned by the Chinese run
    pairs = ["如何", "何设", "设置", "置超", "超时", "时时", "时间"]
    assert all(dict(q)[p] == pytest.approx(1 / 7**0.5) for p in pairs)
    assert dict(analyze_query("時間時間"))["時間"] == pytest.approx(1 / 2**0.5)  # repeats count once
    assert not any(t.startswith("httpx") and t != "httpx" for t in terms)  # no "httpx如何…" compound
    # long runs are analysed each time, not kept in the caches
    before = analyzer._analyze_token.cache_info().currsize
    analyze("一二三四五六七八九十百千万")
    assert analyzer._analyze_token.cache_info().currsize == before


def test_compound_terms_are_every_term_the_analyzer_asks_about() -> None:
    # an index answers for all of them in one look-up (PostgreSQL: one query, not one a term)
    for query in (
        "make requests never time out",
        "reset the data base",
        "base url",
        "time out the door",
        "x",
    ):
        asked: list[str] = []

        def known(term: str, asked: list[str] = asked) -> bool:
            asked.append(term)
            return False

        analyze_query(query, known)
        assert compound_terms(query) == list(dict.fromkeys(asked)), query
    assert compound_terms("reset the data base") == ["database", "databas"]
