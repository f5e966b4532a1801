"""MDC components (Nuxt Content, Docus) are markup: a Nuxt docs tour found `::card` props
read as two headings, `:badge[v4.3]` in 12 titles and their anchors, and component markup
in 55 of 200 results' snippets."""

from __future__ import annotations

import time
from pathlib import Path

from docmentor.engine import Docmentor
from docmentor.parse.markdown import parse_markdown
from docmentor.parse.mdc import inline_links, inline_out

PAGE = """---
title: MCP Server
description: Connect AI assistants to the docs.
---

::card
---
icon: i-custom-cursor
to: cursor://install?name=docs
label: Install MCP Server
---
::

## Setup

::note{icon="i-lucide-info"}
Start the server first.
::

### Cursor

::card-group
  ::card{title="Open on StackBlitz" to="https://stackblitz.com/x"}
  Online playground with a terminal.
  ::
::

Open the settings and add the server.

:read-more{to="/docs/4.x/guide/config#server" title="Config"}

## Server Alias :badge[v4.3]{color="info"}

Use `~~/server`{lang=ts} to import from the server folder, added in :badge[v4.3].

::callout
#title
Slots are named
#default
    Indented body text, no code.
::
"""


def test_component_markup_is_no_heading_and_no_text() -> None:
    doc = parse_markdown(PAGE)
    assert [s.heading for s in doc.sections] == ["", "Setup", "Cursor", "Server Alias"]
    assert doc.sections[0].text.strip() == "Connect AI assistants to the docs."  # the description
    text = "\n".join(s.text for s in doc.sections)
    for markup in ("::", "icon", "i-lucide", "#title", ":badge", ":read-more", "{lang=ts}", "title="):
        assert markup not in text, markup
    assert "Start the server first." in text and "Online playground with a terminal." in text
    assert "Use `~~/server` to import from the server folder, added in v4.3." in text
    assert "Indented body text" in text and not doc.sections[-1].code_blocks
    alias = doc.sections[-1]
    assert alias.heading_path == ["Server Alias"] and alias.anchor in (None, "server-alias")
    targets = {(link.target, link.anchor) for link in doc.links}
    assert ("/docs/4.x/guide/config", "server") in targets
    assert ("https://stackblitz.com/x", None) in targets
    assert ("cursor://install?name=docs", None) in targets


def test_what_only_looks_like_a_component_stays() -> None:
    assert inline_out("a:b{c} at https://x.y/z{1} is :smile: and :name alone") == (
        "a:b{c} at https://x.y/z{1} is :smile: and :name alone"
    )
    assert inline_out("`:badge[x]` in code") == "`:badge[x]` in code"
    assert inline_out("- `query_type`:Optional[str], the type") == "- `query_type`:Optional[str], the type"
    assert inline_out("## :badge[Beta]", heading=True) == "## Beta"  # the whole title
    doc = parse_markdown(
        "# T\n\n```css\n::view-transition-old(root) {}\n::\n```\n\n::: tip\nVitePress\n:::\n"
    )
    text = doc.sections[0].text
    assert "::view-transition-old(root)" in text and "::: tip" in text
    assert inline_links("go to: the server") == []
    # Docusaurus' admonitions close the same way; a title in brackets is what shows
    doc = parse_markdown("# T\n\n:::tip[Pro tip]\nCache it.\n:::\n\n:::note\nA note.\n:::\n")
    assert doc.sections[0].text.split() == ["#", "T", "Pro", "tip", "Cache", "it.", "A", "note."]


def test_a_badge_is_no_part_of_a_title_or_its_anchor(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "4.api" / "2.composables").mkdir(parents=True)
    (docs / "4.api" / "2.composables" / "use-nuxt-app.md").write_text(
        '# useNuxtApp\n\n## Custom Reducer/Reviver :badge[v3.4]{color="info"}\n\nDefine your own reducer.\n'
    )
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="nuxt")
    hit = engine.search("custom reducer reviver", limit=1)[0]
    assert hit.heading == "Custom Reducer/Reviver" and ":badge" not in hit.snippet
    got = engine.get("nuxt:4.api/2.composables/use-nuxt-app.md#custom-reducerreviver")
    assert got.content.startswith("## Custom Reducer/Reviver")
    # Nuxt Content routes pages without their `10.` number prefixes
    assert engine.get("/docs/4.x/api/composables/use-nuxt-app").path == "4.api/2.composables/use-nuxt-app.md"
    engine.close()


def test_hostile_component_lines_parse_in_linear_time() -> None:
    for text in (
        ":a[" * 30000,
        ":a{to=" * 30000,
        "# x " + ":a[b]{" * 20000,
        ":::a\n" * 40000 + "::\n" * 40000,
        "::a\n---\n" * 30000,
        "::a\n" + "#b\n" * 50000,
    ):
        start = time.perf_counter()
        parse_markdown(text)
        inline_out(text[:100000], heading=True)
        assert time.perf_counter() - start < 3, text[:20]
