"""A model's links made to work from the page of the tree its document lands on
(repodocs/relink.py): unit links to pages and anchors, tree pages re-rooted, repository files
shown as code, everything else kept, code blocks untouched, linear on hostile text."""

from __future__ import annotations

import time

from docmentor.repodocs.relink import Links, relink

LINKS = Links(
    pages={
        ".": "index.md",
        "shop": "packages/shop.md",
        "shop.util": "modules/shop.util.md",
        "shop.util.clamp": "modules/shop.util.md",
    },
    anchors={"shop.util.clamp": "c-clamp"},
    files=frozenset({"shop/util.py"}),
)


def test_unit_links_lead_to_the_units_page_and_anchor_from_where_the_document_is() -> None:
    doc = "See [`shop.util`](shop.util.md) and [clamp](shop.util.clamp.md#anything)."
    assert relink(doc, "index.md", LINKS) == (
        "See [`shop.util`](modules/shop.util.md) and [clamp](modules/shop.util.md#c-clamp)."
    )
    assert relink(doc, "packages/shop.md", LINKS) == (
        "See [`shop.util`](../modules/shop.util.md) and [clamp](../modules/shop.util.md#c-clamp)."
    )


def test_tree_pages_are_re_rooted_and_repository_files_become_code() -> None:
    doc = "[the package](./packages/shop.md#x) · [overview](../../index.md) · [src](shop/util.py)"
    assert relink(doc, "modules/shop.util.md", LINKS) == (
        "[the package](../packages/shop.md#x) · [overview](../index.md) · src (`shop/util.py`)"
    )
    assert relink("[`shop/util.py`](shop/util.py)", "index.md", LINKS) == "`shop/util.py`"


def test_web_anchor_unknown_and_fenced_links_are_kept() -> None:
    doc = "\n".join(
        [
            "[web](https://example.com/a.md) [mail](mailto:a@b.c) [here](#c-clamp) [gone](nope.md)",
            "```",
            "[code](shop.util.md)",
            "```",
            "[after](shop.md)",
        ]
    )
    out = relink(doc, "modules/shop.util.md", LINKS).split("\n")
    assert out[0] == doc.split("\n")[0]
    assert out[2] == "[code](shop.util.md)"
    assert out[4] == "[after](../packages/shop.md)"


def test_linear_on_hostile_text() -> None:
    for doc in ("](" * 50_000, "[" * 50_000 + "](shop/util.py)" * 2_000, "](a" * 40_000):
        started = time.perf_counter()
        relink(doc, "index.md", LINKS)
        assert time.perf_counter() - started < 2.0
