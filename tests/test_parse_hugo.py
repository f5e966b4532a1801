"""Hugo shortcodes are markup: what a reader sees is their body and what they print in place
(a tooltip's `text=`, a `ref`'s page), not `{{< alert color="warning" >}}`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.models import RawDocument
from docmentor.parse import parse_document
from docmentor.parse.hugo import examples_shown, shortcodes_out

PAGE = """---
title: Alerts
---

# Alerts {{< badge "beta" >}}

{{% pageinfo %}}
This is a placeholder page.
{{% /pageinfo %}}

A {{< glossary_tooltip text="Pod" term_id="pod" >}} runs containers: see [Pods]({{< ref "pods.md" >}})
and [Nodes]({{< relref path="nodes.md" lang="en" >}}).

{{< alert title="Warning" color="warning" >}}
Do not run this in production.
{{< /alert >}}

Write `{{</* alert */>}}` to show one; `{{< alert >}}` in a code span is shown as written.

```go-html-template
{{</* alert color="warning" */>}}
Text
{{</* /alert */>}}
{{%/* pageinfo */%}}
```
"""


def parse(text: str) -> tuple[str, str, list[str]]:
    doc = parse_document(RawDocument(path="a.md", url="file:///a.md", content=text, fmt="markdown"))
    assert len(doc.sections) == 1
    return doc.sections[0].heading, doc.sections[0].text, [link.target for link in doc.links]


def test_shortcodes_are_markup_their_bodies_and_printed_values_text() -> None:
    heading, text, links = parse(PAGE)
    assert heading == "Alerts"
    assert "{{<" not in text.split("```")[0].replace("`{{< alert >}}`", "")
    assert "This is a placeholder page." in text
    assert "A Pod runs containers: see [Pods](pods.md)" in text
    assert "Do not run this in production." in text
    assert "Warning" not in text and "pageinfo" not in text.split("```")[0]
    assert "Write `{{< alert >}}` to show one; `{{< alert >}}` in a code span" in text
    assert links == ["pods.md", "nodes.md"]


def test_commented_shortcodes_in_code_are_shown_as_hugo_shows_them() -> None:
    _, text, _ = parse(PAGE)
    code = text.split("```go-html-template\n")[1]
    assert code.startswith('{{< alert color="warning" >}}\nText\n{{< /alert >}}\n{{% pageinfo %}}\n```')
    assert examples_shown("x = '{{</* y'") == "x = '{{</* y'"  # never closed: as written


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("{{< /alert >}}", ""),
        ("{{< figure src=x.png >}}", ""),
        ("Version {{< param version >}} is out", "Version  is out"),
        ("{{< tab header='Go' >}}", ""),
        ("no close {{< alert", "no close {{< alert"),
        ("a {{% x %}} b {{< y >}} c", "a  b  c"),
        ("{{< >}}", ""),
    ],
)
def test_one_line(line: str, shown: str) -> None:
    assert shortcodes_out(line) == shown


@pytest.mark.parametrize(
    "line",
    ["{{<" * 30_000, "{{<a" * 20_000 + "{{%", "{{</*" * 20_000, "{{<" + "a" * 90_000, "{{<" * 20_000 + ">}}",
     "`{{<" * 20_000, "{{< ref " + '"' * 60_000 + " >}}", "{{< x text=" + "'" * 60_000 + " >}}"],
)  # fmt: skip
def test_adversarial_lines_take_linear_time(line: str) -> None:
    start = time.perf_counter()
    shortcodes_out(line)
    examples_shown(line)
    assert time.perf_counter() - start < 1.0


def test_search_and_get_read_a_hugo_page_as_shown(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "alerts.md").write_text(PAGE, encoding="utf-8")
    engine = Docmentor(tmp_path / ".db", embeddings=False)
    try:
        engine.add(tmp_path / "docs", name="site")
        hits = engine.search("placeholder page production", source="site")
        snippet = hits[0].snippet
        assert "This is a placeholder page." in snippet
        assert 'title="Warning"' not in snippet and "glossary_tooltip" not in snippet  # markup
        assert not engine.search("glossary_tooltip term_id", source="site")  # markup: no words
    finally:
        engine.close()
