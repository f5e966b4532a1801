"""llms.txt parsing and fetching, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest

import httpserver
from docmentor.errors import SourceUnavailableError
from docmentor.sources import client, llmstxt
from docmentor.sources.llmstxt import (
    FetchSettings,
    LlmsListing,
    PriorDoc,
    detect_kind,
    load_llms_source,
)
from docmentor.sources.llmstxt_links import FetchOutcome
from docmentor.sources.llmstxt_parse import parse_llms_txt
from httpserver import HttpServer, Reply

# The server fixtures live in tests/httpserver.py; naming them here makes pytest use them.
http_server = httpserver.http_server
http_server_factory = httpserver.http_server_factory

MD = "text/markdown; charset=utf-8"
HTML = "text/html; charset=utf-8"


def fast(**kwargs: Any) -> FetchSettings:
    """Settings with short waits so failures do not slow the suite down."""
    base: dict[str, Any] = {"backoff": 0.01, "timeout": 3.0}
    base.update(kwargs)
    return FetchSettings(**base)


def by_url(listing: LlmsListing) -> dict[str, FetchOutcome]:
    return {o.url: o for o in listing.outcomes}


def serve_index(server: HttpServer, links: list[str], path: str = "/docs/llms.txt") -> str:
    body = "# Test Docs\n\n> A summary.\n\n## Docs\n\n" + "".join(f"- {x}\n" for x in links)
    server.add(path, body, content_type="text/plain; charset=utf-8")
    return server.url(path)


# --------------------------------------------------------------------------- parsing

SAMPLE = """\
# FastThing

> FastThing makes things fast.
> Really fast.

FastThing is a library. Read the [intro](intro.md) first.

```markdown
- [Not a link](inside-a-fence.md): ignored
```

## Docs

- [Quickstart](quickstart.md): start here
- [API](/api/reference.md) - the full API
  - [Nested](sub/nested.md#part)
1. [Numbered](numbered.md)
- [Spaced](<my page.md> "Title"): spaces in URL
- [Elsewhere](https://other.example/x.md)

### Subheading keeps the section

- [Deep](deep.md)

## Optional

- [Changelog](../changelog.md): history
"""


def test_parse_title_summary_sections_and_links() -> None:
    parsed = parse_llms_txt(SAMPLE, "https://h.example/docs/llms.txt")
    assert parsed.title == "FastThing"
    assert parsed.summary == "FastThing makes things fast. Really fast."
    assert parsed.details.startswith("FastThing is a library.")
    assert "inside-a-fence" in parsed.details
    assert [s.name for s in parsed.sections] == ["Docs", "Optional"]
    assert [s.optional for s in parsed.sections] == [False, True]
    docs = parsed.sections[0].links
    assert [(link.title, link.url, link.notes) for link in docs] == [
        ("Quickstart", "https://h.example/docs/quickstart.md", "start here"),
        ("API", "https://h.example/api/reference.md", "the full API"),
        ("Nested", "https://h.example/docs/sub/nested.md", None),
        ("Numbered", "https://h.example/docs/numbered.md", None),
        ("Spaced", "https://h.example/docs/my%20page.md", "spaces in URL"),
        ("Elsewhere", "https://other.example/x.md", None),
        ("Deep", "https://h.example/docs/deep.md", None),
    ]
    assert all(link.section == "Docs" and not link.optional for link in docs)
    (changelog,) = parsed.sections[1].links
    assert changelog.optional and changelog.url == "https://h.example/changelog.md"
    assert changelog.line == SAMPLE.splitlines().index("- [Changelog](../changelog.md): history") + 1
    assert all("inside-a-fence" not in link.url for link in parsed.links)
    assert parsed.warnings == ()


def test_parse_malformed_lines_and_missing_h1() -> None:
    text = (
        "Some intro without a title.\n\n"
        "- [Good](good.md)\n"
        "- [Broken](\n"
        "- [No URL]()\n"
        "- just a bullet\n"
        "* [Star](star.md): notes: with colons\n"
    )
    parsed = parse_llms_txt(text, "http://h/llms.txt")
    assert parsed.title is None
    assert parsed.summary is None
    assert "the llms.txt has no H1 title (its first line should be # NAME)" in parsed.warnings
    assert sum("malformed link" in w for w in parsed.warnings) == 1
    assert sum("without a document URL" in w for w in parsed.warnings) == 1
    # A file with no H2 keeps its list links in an unnamed section.
    assert [s.name for s in parsed.sections] == [""]
    assert [(link.url, link.notes) for link in parsed.links] == [
        ("http://h/good.md", None),
        ("http://h/star.md", "notes: with colons"),
    ]
    assert parse_llms_txt("", "http://h/llms.txt").sections == ()


def test_parse_balanced_brackets_in_link_text_and_parentheses_in_urls() -> None:
    """CommonMark allows both; a tour's llms.txt fetched ``page_(v2`` and dropped
    ``[Nested [brackets]]`` as malformed."""
    text = (
        "# Site\n\n## Docs\n\n"
        "- [Paren](page_(v2).md): wiki-style\n"
        "- [Nested [brackets]](nest.md)\n"
        '- [`List[int]`](api/list_(int).md "title"): typed\n'
        "- [Unbalanced](page_(v2.md)\n"
        "- [The \\[ operator](op.md)\n"  # an escaped bracket, and an unbalanced one, read as before
        "- [a [b](ab.md)\n"
    )
    parsed = parse_llms_txt(text, "http://h/llms.txt")
    assert [(link.title, link.url, link.notes) for link in parsed.links] == [
        ("Paren", "http://h/page_(v2).md", "wiki-style"),
        ("Nested [brackets]", "http://h/nest.md", None),
        ("`List[int]`", "http://h/api/list_(int).md", "typed"),
        ("Unbalanced", "http://h/page_(v2.md", None),  # as before: its fetch says what it got
        ("The \\[ operator", "http://h/op.md", None),
        ("a [b", "http://h/ab.md", None),
    ]
    assert parsed.warnings == ()


def test_detect_kind() -> None:
    assert detect_kind("https://h/llms-full.txt") == "llms_full"
    assert detect_kind("https://h/docs/llms-ctx-full.txt") == "llms_full"
    assert detect_kind("/tmp/x/LLMS-FULL.TXT") == "llms_full"
    assert detect_kind("https://h/llms.txt") == "llms_txt"
    assert detect_kind("https://h/llms-full.txt.html/llms.txt") == "llms_txt"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:8000/docs/a.md", None),
        ("http://127.0.0.1:8000/docs/", None),
        ("http://127.0.0.1:8000/docs/sub/b.md?x=1", None),
        ("http://127.0.0.1:8000/blog/x", "outside /docs/"),
        ("http://127.0.0.1:8000/docs/../blog/x", "outside /docs/"),
        ("http://127.0.0.1:8000/docs/%2e%2e/blog/x", "outside /docs/"),
        ("http://127.0.0.1:8000/docsevil/x", "outside /docs/"),
        ("http://localhost:8000/docs/a.md", "to another host"),
        ("http://127.0.0.1:8001/docs/a.md", "to another host"),
        ("https://127.0.0.1:8000/docs/a.md", "to another host"),
        ("http://user:pw@127.0.0.1:8000/docs/a.md", "with credentials in the URL"),
        ("ftp://127.0.0.1/docs/a.md", "with scheme 'ftp:'"),
        ("file:///etc/passwd", "with scheme 'file:'"),
        ("javascript:alert(1)", "with scheme 'javascript:'"),
        ("data:text/plain,hi", "with scheme 'data:'"),
        ("https://cdn.example/docs/x.md", None),  # allowed URL prefix
        ("https://cdn.example/other/x.md", "to another host"),
        ("http://docs.example:9000/anything", None),  # allowed host, any port
        ("https://a.wild.example/x", None),  # allowed *.wild.example
    ],
)
def test_scope_rules(url: str, reason: str | None) -> None:
    settings = FetchSettings(allowed_hosts=("https://cdn.example/docs/", "docs.example", "*.wild.example"))
    scope = llmstxt.fetch_scope(["http://127.0.0.1:8000/docs/llms.txt"], settings)
    assert scope.refusal(url) == reason


# ---------------------------------------------------------------------- fetching

PAGE_HTML = """<!DOCTYPE html><html><head><title>Page | Site</title>
<style>body{}</style><script>var x = 1;</script></head><body>
<header><a href="/">Site logo</a></header><nav><ul><li>Home</li><li>Other</li></ul></nav>
<main><h1>Installing</h1><p>Run the <code>install_all</code> command.</p>
<h2>Steps</h2><ul><li>first</li><li>second</li></ul>
<pre><code class="language-python">def hello():
    return "hi"
</code></pre>
<div class="highlight-bash notranslate"><div class="highlight"><pre>pip install x</pre></div></div>
<table><thead><tr><th>Option</th><th>Default</th></tr></thead>
<tbody><tr><td>timeout</td><td>20</td></tr></tbody></table>
</main><footer>Copyright footer</footer></body></html>"""


def test_fetch_markdown_html_and_text(http_server: HttpServer) -> None:
    guide = "# Guide\r\n\r\nTrailing spaces   \r\n\tTabbed line\r\n\n\n\nLast line\u00e9"
    http_server.add("/docs/guide.md", guide, content_type=MD, etag='"g1"')
    http_server.add("/docs/page", PAGE_HTML, content_type=HTML)
    http_server.add("/docs/sniffed", PAGE_HTML, content_type="text/plain")
    http_server.add("/docs/notes.txt", "plain words\n", content_type="text/plain")
    http_server.add(
        "/docs/latin.md",
        "caf\u00e9 # x".encode("latin-1"),
        content_type="text/plain; charset=latin-1",
    )
    url = serve_index(
        http_server,
        [
            "[Guide](guide.md): the guide",
            "[Page](page)",
            "[Sniffed](sniffed)",
            "[Notes](notes.txt)",
            "[Latin](latin.md)",
            "[Guide again](guide.md#install)",
        ],
    )
    calls: list[tuple[int, int]] = []
    listing = load_llms_source(url, settings=fast(), progress=lambda d, t: calls.append((d, t)))

    assert listing.kind == "llms_txt" and listing.title == "Test Docs"
    assert listing.summary == "A summary."
    assert listing.index_document.path == "/docs/llms.txt"
    assert listing.index_document.content.startswith("# Test Docs")
    assert [o.url.rsplit("/", 1)[1] for o in listing.outcomes] == [
        "guide.md",
        "page",
        "sniffed",
        "notes.txt",
        "latin.md",
    ]
    assert all(o.status == "ok" for o in listing.outcomes), listing.outcomes
    assert calls[0] == (0, 5) and calls[-1] == (5, 5) and len(calls) == 6

    out = by_url(listing)
    g = out[http_server.url("/docs/guide.md")]
    assert g.document is not None
    assert g.document.content == guide  # byte-faithful: CRLF, tabs, blank runs kept
    assert (g.document.path, g.document.fmt, g.document.etag) == (
        "/docs/guide.md",
        "markdown",
        '"g1"',
    )
    assert (g.title, g.section, g.document.title_hint) == ("Guide", "Docs", "Guide")

    for name in ("/docs/page", "/docs/sniffed"):
        doc = out[http_server.url(name)].document
        assert doc is not None and doc.fmt == "markdown"
        md = doc.content
        assert md.startswith("# Installing\n")
        assert "## Steps" in md
        assert "- first\n- second" in md
        assert "`install_all`" in md
        assert '```python\ndef hello():\n    return "hi"\n```' in md
        assert "```bash\npip install x\n```" in md
        assert "| Option | Default |\n| --- | --- |\n| timeout | 20 |" in md
        for dropped in ("Site logo", "Home", "Copyright", "var x", "body{}"):
            assert dropped not in md

    notes = out[http_server.url("/docs/notes.txt")].document
    assert notes is not None and (notes.content, notes.fmt) == ("plain words\n", "text")
    latin = out[http_server.url("/docs/latin.md")].document
    assert latin is not None and latin.content == "caf\u00e9 # x"

    assert http_server.hits("/docs/guide.md") == 1  # de-duplicated
    assert http_server.requests_for("/docs/page")[0].headers["user-agent"] == "docmentor"
    assert http_server.errors == []


def test_a_wrong_charset_header_does_not_garble_a_page(http_server: HttpServer) -> None:
    """A tour: a UTF-8 page served with `charset=iso-8859-1` (a common server default) was
    stored as "CafÃ©", `charset=utf-16` made it CJK; Latin-1 bytes under `charset=utf-8` came
    out as U+FFFD. The header is a hint: UTF-8 bytes are UTF-8, a byte-order mark decides,
    Western bytes read as Windows-1252 — each said in a warning, as for a local file."""
    page = "# Café\n\nNaïve résumé from Zürich.\n"
    served = {
        "utf8-as-latin1.md": (page.encode(), "text/markdown; charset=iso-8859-1"),
        "utf8-as-utf16.md": (page.encode(), "text/plain; charset=utf-16"),
        "latin1-as-utf8.md": (page.encode("cp1252"), "text/markdown; charset=utf-8"),
        "latin1-as-latin1.md": (page.encode("latin-1"), "text/markdown; charset=latin-1"),
        "utf16-bom-as-utf8.md": (page.encode("utf-16"), "text/markdown; charset=utf-8"),
    }
    for name, (body, ctype) in served.items():
        http_server.add(f"/docs/{name}", body, content_type=ctype)
    url = serve_index(http_server, [f"[{n}]({n})" for n in served])
    listing = load_llms_source(url, settings=fast())
    out = by_url(listing)
    said = {}
    for name in served:
        doc = out[http_server.url(f"/docs/{name}")].document
        assert doc is not None and doc.content == page, (name, doc)
        said[name] = " ".join(doc.warnings)
    assert "declared charset 'iso-8859-1', but the bytes are UTF-8" in said["utf8-as-latin1.md"]
    assert "read as Windows-1252" in said["latin1-as-utf8.md"]
    assert said["latin1-as-latin1.md"] == ""  # as declared


def test_include_optional_false_skips_optional_links(http_server: HttpServer) -> None:
    http_server.add("/docs/a.md", "# A")
    http_server.add(
        "/docs/llms.txt",
        "# T\n\n## Docs\n\n- [A](a.md)\n\n## Optional\n\n- [B](b.md)\n- [A](a.md)\n",
    )
    listing = load_llms_source(http_server.url("/docs/llms.txt"), settings=fast())
    assert [(o.url[-4:], o.optional, o.status) for o in listing.outcomes] == [
        ("a.md", False, "ok"),
        ("b.md", True, "failed"),
    ]
    listing = load_llms_source(http_server.url("/docs/llms.txt"), settings=fast(include_optional=False))
    assert [o.url[-4:] for o in listing.outcomes] == ["a.md"]


def test_server_errors_are_retried_then_reported(http_server: HttpServer) -> None:
    http_server.add("/docs/ok.md", "# OK")
    http_server.add("/docs/broken.md", status=500, body="boom")
    http_server.add("/docs/missing.md", status=404, body="nope")
    http_server.add("/docs/flaky.md", Reply(status=503), Reply(status=429), Reply(body="# Back"))
    url = serve_index(
        http_server,
        ["[OK](ok.md)", "[Broken](broken.md)", "[Missing](missing.md)", "[Flaky](flaky.md)"],
    )
    out = by_url(load_llms_source(url, settings=fast(retries=2)))

    assert out[http_server.url("/docs/ok.md")].status == "ok"
    broken = out[http_server.url("/docs/broken.md")]
    assert (broken.status, broken.error, broken.document) == (
        "failed",
        "HTTP 500 after 3 attempts",
        None,
    )
    assert http_server.hits("/docs/broken.md") == 3
    missing = out[http_server.url("/docs/missing.md")]
    assert (missing.status, missing.error) == ("failed", "HTTP 404")
    assert http_server.hits("/docs/missing.md") == 1  # 4xx is not retried
    flaky = out[http_server.url("/docs/flaky.md")]
    assert flaky.status == "ok" and flaky.document is not None
    assert flaky.document.content == "# Back"
    assert http_server.hits("/docs/flaky.md") == 3


def test_unavailable_index_raises(http_server: HttpServer) -> None:
    http_server.add("/docs/llms.txt", status=503, body="down")
    with pytest.raises(SourceUnavailableError, match="HTTP 503 after 2 attempts"):
        load_llms_source(http_server.url("/docs/llms.txt"), settings=fast(retries=1))
    assert http_server.hits("/docs/llms.txt") == 2

    http_server.add("/bin/llms.txt", b"\x89PNG\r\n\x1a\n\x00\x00", content_type="image/png")
    with pytest.raises(SourceUnavailableError, match="not a text file"):
        load_llms_source(http_server.url("/bin/llms.txt"), settings=fast())
    http_server.add("/html/llms.txt", "<html><body>Not found</body></html>", content_type=HTML)
    with pytest.raises(SourceUnavailableError, match="HTML page"):
        load_llms_source(http_server.url("/html/llms.txt"), settings=fast())
    with pytest.raises(SourceUnavailableError, match="HTTP 404"):
        load_llms_source(http_server.url("/nothing/llms.txt"), settings=fast())


def test_unreachable_index_raises() -> None:
    with HttpServer() as server:
        url = server.url("/llms.txt")
    with pytest.raises(SourceUnavailableError, match="connection failed"):
        load_llms_source(url, settings=fast(retries=0))


def test_timeouts(http_server: HttpServer) -> None:
    http_server.add("/docs/slow.md", "# Slow", delay=1.5)
    http_server.add("/docs/drip.md", b"x" * 40, chunk_size=4, chunk_delay=0.1)
    http_server.add("/docs/fast.md", "# Fast")
    url = serve_index(http_server, ["[S](slow.md)", "[D](drip.md)", "[F](fast.md)"])
    out = by_url(load_llms_source(url, settings=fast(timeout=0.3, retries=1)))
    slow = out[http_server.url("/docs/slow.md")]
    assert (slow.status, slow.error) == ("failed", "timed out after 2 attempts")
    assert http_server.hits("/docs/slow.md") == 2
    # The limit covers the whole request, so a body that trickles in also times out.
    assert out[http_server.url("/docs/drip.md")].error == "timed out after 2 attempts"
    assert out[http_server.url("/docs/fast.md")].status == "ok"


def test_size_cap(http_server: HttpServer) -> None:
    http_server.add("/docs/big.md", b"a" * 5000)
    http_server.add("/docs/stream.md", b"b" * 5000, chunked=True, chunk_size=500)
    http_server.add("/docs/small.md", b"c" * 900)
    url = serve_index(http_server, ["[Big](big.md)", "[Stream](stream.md)", "[Small](small.md)"])
    out = by_url(load_llms_source(url, settings=fast(max_bytes=1000)))
    big = out[http_server.url("/docs/big.md")]
    assert big.status == "failed" and big.error is not None
    assert big.error.startswith("over the size cap of 1.0 KB")
    assert http_server.hits("/docs/big.md") == 1  # not retried
    assert out[http_server.url("/docs/stream.md")].error == "over the size cap of 1.0 KB"
    assert out[http_server.url("/docs/small.md")].status == "ok"
    assert FetchSettings().max_bytes == 5_000_000
    assert llmstxt.human_size(5_000_000) == "5.0 MB"


def test_redirects(http_server: HttpServer, http_server_factory: Any) -> None:
    other = http_server_factory()
    other.add("/docs/evil.md", "# Evil")
    http_server.redirect("/docs/old.md", "/docs/new.md", status=301)
    http_server.add("/docs/new.md", "# New")
    http_server.redirect("/docs/away.md", other.url("/docs/evil.md"))
    http_server.redirect("/docs/up.md", "/blog/post.md")
    http_server.redirect("/docs/loop.md", "/docs/loop.md")
    url = serve_index(
        http_server,
        ["[Old](old.md)", "[Away](away.md)", "[Up](up.md)", "[Loop](loop.md)"],
    )
    out = by_url(load_llms_source(url, settings=fast()))
    old = out[http_server.url("/docs/old.md")]
    assert old.status == "ok" and old.document is not None
    assert (old.document.url, old.document.path) == (
        http_server.url("/docs/new.md"),
        "/docs/old.md",
    )
    away = out[http_server.url("/docs/away.md")]
    assert (away.status, away.error) == (
        "refused",
        f"redirect to another host refused: {other.url('/docs/evil.md')}",
    )
    assert other.hits("/docs/evil.md") == 0
    up = out[http_server.url("/docs/up.md")]
    assert up.status == "refused" and up.error is not None and "outside /docs/" in up.error
    assert http_server.hits("/blog/post.md") == 0
    loop = out[http_server.url("/docs/loop.md")]
    assert (loop.status, loop.error) == ("failed", "too many redirects (more than 5)")
    assert http_server.hits("/docs/loop.md") == 6

    allowed = fast(allowed_hosts=(f"127.0.0.1:{other.port}",))
    out = by_url(load_llms_source(url, settings=allowed))
    away = out[http_server.url("/docs/away.md")]
    assert away.status == "ok" and away.document is not None
    assert away.document.url == other.url("/docs/evil.md")


def test_link_scope_and_allowed_hosts(http_server: HttpServer, http_server_factory: Any) -> None:
    other = http_server_factory(url_host="localhost")
    other.add("/docs/x.md", "# X")
    other.add("/private/y.md", "# Y")
    http_server.add("/blog/post.md", "# Blog")
    links = [
        "[Blog](/blog/post.md)",
        f"[X]({other.url('/docs/x.md')})",
        f"[Y]({other.url('/private/y.md')})",
        "[FTP](ftp://127.0.0.1/docs/a.md)",
        "[JS](javascript:alert(1))",
        "[Data](data:text/plain,hello)",
        "[File](file:///etc/passwd)",
    ]
    url = serve_index(http_server, links)
    listing = load_llms_source(url, settings=fast())
    assert [o.status for o in listing.outcomes] == ["refused"] * 7
    errors = [o.error for o in listing.outcomes]
    assert errors[:4] == [
        "link outside /docs/ refused",
        "link to another host refused",
        "link to another host refused",
        "link with scheme 'ftp:' refused",
    ]
    assert http_server.hits("/blog/post.md") == 0 and other.requests == []

    settings = fast(allowed_hosts=(other.url("/docs/"),))
    out = by_url(load_llms_source(url, settings=settings))
    x = out[other.url("/docs/x.md")]
    assert x.status == "ok" and x.document is not None
    assert x.document.path == f"//localhost:{other.port}/docs/x.md"
    assert out[other.url("/private/y.md")].status == "refused"
    out = by_url(load_llms_source(url, settings=fast(allowed_hosts=("localhost",))))
    assert out[other.url("/private/y.md")].status == "ok"


def test_index_redirects(http_server: HttpServer, http_server_factory: Any) -> None:
    http_server.redirect("/llms.txt", "/docs/llms.txt")
    url = serve_index(http_server, ["[A](a.md)", "[Root](/r.md)"])
    http_server.add("/docs/a.md", "# A")
    http_server.add("/r.md", "# R")
    listing = load_llms_source(http_server.url("/llms.txt"), settings=fast())
    assert listing.index_document.url == url
    # Links resolve against the final URL; both the asked and final folders are in scope.
    assert [o.status for o in listing.outcomes] == ["ok", "ok"]

    other = http_server_factory()
    http_server.redirect("/moved/llms.txt", other.url("/llms.txt"))
    with pytest.raises(SourceUnavailableError, match="redirect to another host refused") as info:
        load_llms_source(http_server.url("/moved/llms.txt"), settings=fast())
    host = other.url("/").split("/")[2]
    assert info.value.hint == (
        f"to follow it, add the source again with --allow-host {host} (allowed_hosts in docmentor.toml)"
    )


def test_conditional_requests(http_server: HttpServer) -> None:
    lm = "Wed, 21 Oct 2015 07:28:00 GMT"
    http_server.add("/docs/e.md", "# E", etag='"v1"')
    http_server.add("/docs/l.md", "# L", last_modified=lm)
    http_server.add("/docs/changed.md", "# C2", etag='"v2"')
    http_server.add("/docs/plain.md", "# P")
    url = serve_index(http_server, ["[E](e.md)", "[L](l.md)", "[C](changed.md)", "[P](plain.md)"])
    first = by_url(load_llms_source(url, settings=fast()))
    e_doc = first[http_server.url("/docs/e.md")].document
    l_doc = first[http_server.url("/docs/l.md")].document
    assert e_doc is not None and e_doc.etag == '"v1"'
    assert l_doc is not None and l_doc.last_modified == lm
    http_server.reset_stats()

    prior = {
        http_server.url("/docs/e.md"): PriorDoc(etag=e_doc.etag, last_modified=None),
        http_server.url("/docs/l.md"): PriorDoc(etag=None, last_modified=l_doc.last_modified),
        http_server.url("/docs/changed.md"): PriorDoc(etag='"v1"', last_modified=None),
        url: PriorDoc(etag='"idx"', last_modified=lm),
    }
    out = by_url(load_llms_source(url, prior=prior, settings=fast()))
    e = out[http_server.url("/docs/e.md")]
    assert (e.status, e.document, e.error) == ("not_modified", None, None)
    assert http_server.requests_for("/docs/e.md")[0].headers["if-none-match"] == '"v1"'
    assert out[http_server.url("/docs/l.md")].status == "not_modified"
    assert http_server.requests_for("/docs/l.md")[0].headers["if-modified-since"] == lm
    changed = out[http_server.url("/docs/changed.md")]
    assert changed.status == "ok" and changed.document is not None
    assert changed.document.etag == '"v2"'
    assert out[http_server.url("/docs/plain.md")].status == "ok"
    plain_headers = http_server.requests_for("/docs/plain.md")[0].headers
    assert "if-none-match" not in plain_headers and "if-modified-since" not in plain_headers
    index_headers = http_server.requests_for("/docs/llms.txt")[0].headers
    assert "if-none-match" not in index_headers  # the llms.txt is always fetched in full


def test_concurrency_limit_and_one_shared_client(
    http_server: HttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    created: list[client.H11Client] = []

    class CountingClient(client.H11Client):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            created.append(self)

    monkeypatch.setattr(client, "H11Client", CountingClient)
    names = [f"d{i}.md" for i in range(12)]
    for name in names:
        http_server.add(f"/docs/{name}", f"# {name}", delay=0.1)
    url = serve_index(http_server, [f"[{n}]({n})" for n in names])
    listing = load_llms_source(url, settings=fast(concurrency=3))
    assert [o.status for o in listing.outcomes] == ["ok"] * 12
    assert http_server.max_in_flight == 3
    assert len(created) == 1
    # One pooled client: connections are reused, never more than the limit.
    assert http_server.connections <= 3


def test_local_llms_txt(tmp_path: Path, http_server: HttpServer, http_server_factory: Any) -> None:
    other = http_server_factory()
    http_server.add("/remote/r.md", "# Remote")
    http_server.redirect("/remote/away.md", other.url("/x.md"))
    (tmp_path / "secret.md").write_text("TOP SECRET")
    root = tmp_path / "site"
    (root / "sub").mkdir(parents=True)
    (root / "guide.md").write_text("# Guide\n\ntext  \n", encoding="utf-8")
    (root / "sub" / "page.html").write_text(PAGE_HTML, encoding="utf-8")
    os.symlink(tmp_path / "secret.md", root / "link.md")
    (root / "llms.txt").write_text(
        "# Local\n\n## Docs\n\n"
        "- [Guide](guide.md)\n"
        "- [Page](sub/page.html)\n"
        "- [Secret](../secret.md)\n"
        "- [Passwd](../../../../../../etc/passwd)\n"
        "- [Abs](/etc/hosts)\n"
        "- [Link](link.md)\n"
        "- [Missing](missing.md)\n"
        f"- [Remote]({http_server.url('/remote/r.md')})\n"
        f"- [Away]({http_server.url('/remote/away.md')})\n"
        "- [FTP](ftp://example.com/x.md)\n",
        encoding="utf-8",
    )
    listing = load_llms_source(str(root / "llms.txt"), settings=fast())
    assert listing.title == "Local"
    assert listing.index_document.path == "llms.txt"
    assert listing.index_document.url == (root / "llms.txt").as_uri()
    statuses = {o.title: (o.status, o.document.path if o.document else o.error) for o in listing.outcomes}
    assert statuses["Guide"] == ("ok", "guide.md")
    assert statuses["Page"] == ("ok", "sub/page.html")
    for name in ("Secret", "Passwd", "Abs", "Link"):
        assert statuses[name][0] == "refused", name
    assert statuses["Missing"] == ("failed", "file not found")
    assert statuses["Remote"] == ("ok", f"//127.0.0.1:{http_server.port}/remote/r.md")
    assert statuses["Away"][0] == "refused"
    assert statuses["FTP"] == ("refused", "link with scheme 'ftp:' refused")
    assert other.requests == []
    out = {o.title: o for o in listing.outcomes}
    guide, page = out["Guide"].document, out["Page"].document
    assert guide is not None and guide.content == "# Guide\n\ntext  \n"
    assert guide.url == (root / "guide.md").as_uri()
    assert page is not None and page.content.startswith("# Installing")
    assert all("SECRET" not in (o.document.content if o.document else "") for o in listing.outcomes)
    assert sum("outside" in w for w in listing.warnings) == 4


def test_local_index_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceUnavailableError, match="cannot read"):
        load_llms_source(str(tmp_path / "nope.txt"))
    with pytest.raises(SourceUnavailableError, match="is a folder"):
        load_llms_source(str(tmp_path))


def test_llms_full_is_one_document(http_server: HttpServer, tmp_path: Path) -> None:
    # a list item of prose with a link in it reads as a malformed link to the llms.txt parser:
    # in an llms-full.txt it is text, and no warning (a tour: ten on every refresh)
    body = (
        "# Everything\n\n> All docs in one file.\n\n## Part\n\n- [Link](a.md)\n\n"
        "* A broadly [requests-compatible API](compatibility.md).\n\nText.\n"
    )
    http_server.add("/docs/llms-full.txt", body)
    listing = load_llms_source(http_server.url("/docs/llms-full.txt"), settings=fast())
    assert listing.warnings == []
    assert (listing.kind, listing.title, listing.summary) == (
        "llms_full",
        "Everything",
        "All docs in one file.",
    )
    assert listing.outcomes == []
    assert listing.index_document.content == body
    assert listing.index_document.path == "/docs/llms-full.txt"
    assert http_server.hits("/docs/a.md") == 0

    local = tmp_path / "everything.txt"
    local.write_text(body, encoding="utf-8")
    listing = load_llms_source(str(local), kind="llms_full")
    assert listing.kind == "llms_full" and listing.outcomes == []
    assert listing.index_document.content == body


def test_custom_transport_is_used_for_every_request() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if request.url.path == "/llms.txt":
            return httpx.Response(200, text="# Mock\n\n## Docs\n\n- [A](a.md)\n- [B](b.md)\n")
        return httpx.Response(200, text=f"# {request.url.path}", headers={"ETag": '"m"'})

    listing = load_llms_source(
        "https://docs.example/llms.txt", settings=fast(), transport=httpx.MockTransport(handler)
    )
    assert [o.status for o in listing.outcomes] == ["ok", "ok"]
    assert sorted(seen) == [
        "https://docs.example/a.md",
        "https://docs.example/b.md",
        "https://docs.example/llms.txt",
    ]


def test_the_count_of_documents_not_fetched_is_worded_for_one_and_many() -> None:
    """A tour read "1 documents not fetched keep their last good copy"."""
    from docmentor.sources.llmstxt import _not_fetched

    assert _not_fetched(1) == "1 document not fetched keeps its last good copy"
    assert _not_fetched(6) == "6 documents not fetched keep their last good copy"


def test_a_site_moved_to_another_host_is_fetched_conditionally_again(
    tmp_path: Path, http_server: HttpServer, http_server_factory: Any
) -> None:
    """A tour: after the llms.txt moved to another host, every refresh downloaded every page
    in full (no If-None-Match: the stored URLs were the old host's), and citations kept the
    old host. The same text from its new address is written once with its new URL."""
    from docmentor.engine import Docmentor

    other = http_server_factory()
    index = "# Site\n\n## Docs\n\n- [A](a.md)\n"
    for server in (http_server, other):
        server.add("/docs/a.md", "# A\n\nAlpha page.\n", content_type=MD, etag='"a1"')
        server.add("/docs/llms.txt", index, content_type="text/plain; charset=utf-8")
    engine = Docmentor(tmp_path / "idx", embeddings=False)
    engine.add(http_server.url("/docs/llms.txt"), name="site", options={"allowed_hosts": [other.url("/")]})
    http_server.redirect("/docs/llms.txt", other.url("/docs/llms.txt"), status=301)
    (moved,) = engine.refresh("site")
    assert (moved.updated, moved.failed) == (2, [])  # the llms.txt and its page, from their new host
    assert engine.get("site:/docs/a.md").url == other.url("/docs/a.md")
    (again,) = engine.refresh("site")
    assert again.updated == 0
    last = other.requests_for("/docs/a.md")[-1]
    assert last.headers.get("if-none-match") == '"a1"'
    engine.close()


def test_a_body_that_does_not_decode_fails_at_once_without_retries(http_server: HttpServer) -> None:
    """A page whose gzip body is corrupt is the server's answer, not a failure of the moment:
    it fails on the first try, saying so, instead of being asked for again and again (a
    tour: each such page cost every retry's back-off)."""
    http_server.add(
        "/docs/broken.md", b"\x1f\x8b\x08\x00garbage, not gzip", headers={"Content-Encoding": "gzip"}
    )
    http_server.add("/docs/fine.md", "# Fine\n\nText.\n", content_type="text/markdown")
    url = serve_index(http_server, ["[Broken](broken.md)", "[Fine](fine.md)"])
    listing = load_llms_source(url, settings=fast(retries=3))
    broken = by_url(listing)[http_server.url("/docs/broken.md")]
    assert broken.status == "failed" and broken.error is not None
    assert broken.error.startswith("the response body is broken: gzip data does not decode"), broken.error
    assert http_server.hits("/docs/broken.md") == 1
    assert by_url(listing)[http_server.url("/docs/fine.md")].status == "ok"
