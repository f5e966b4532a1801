"""What the includes of one source may add is capped in total (issue 19, section 6, item 9).

The size cap is per page, so one large snippet included by many pages multiplied the
index (a 2 MB snippet × 60 pages stored 122 MB). Now the includes of one folder may add
``max_included_bytes`` in total (default: four times the folder's documents, at least
10 MB); pages past it keep the include as written, every page is indexed, and the
source gets one warning with the counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import docmentor.sources.local as local
from clitool import Cli
from docmentor.sources.local import scan_folder

SNIPPET = 200_000  # characters in the shared snippet
PAGES = 30


def folder(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "snippets").mkdir()
    lines = [f"snippetline {k} " + "x" * 60 for k in range(SNIPPET // 75)]
    (docs / "snippets" / "big.py").write_text("\n".join(lines) + "\n")
    for k in range(PAGES):
        (docs / f"page{k:02d}.md").write_text(f'# Page {k}\n\npageword{k} text\n\n--8<-- "snippets/big.py"\n')
    return docs


def stored(cli: Cli, name: str) -> dict[str, str]:
    paths = [f"page{k:02d}.md" for k in range(PAGES)]
    return {p: cli.json("get", f"{name}:{p}", "--limit", "1000000")["content"] for p in paths}


def test_cli_refresh_caps_what_includes_add(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = folder(tmp_path)
    (tmp_path / "docmentor.toml").write_text(
        f'[[sources]]\nname = "big"\npath = "{docs.name}"\nmax_included_bytes = 1000000\n'
    )
    monkeypatch.chdir(tmp_path)
    cli = Cli(tmp_path / "index", capsys)
    rc, out, err = cli("refresh")
    assert rc == 0, err
    assert out.startswith(f"big: {PAGES} documents"), out
    warnings = [line for line in err.splitlines() if "left as written" in line]
    assert len(warnings) == 1, err  # one warning for the source, not one per page
    pages = stored(cli, "big")
    full = [p for p, text in pages.items() if "snippetline 100 " in text]
    kept = [p for p, text in pages.items() if '--8<-- "snippets/big.py"' in text]
    assert len(full) + len(kept) == PAGES  # every page is there, expanded or with its include as written
    grown = len(pages[full[0]]) - len(pages[kept[0]])  # what one include adds to its page
    expanded, left = len(full), len(kept)
    assert expanded == -(-1_000_000 // grown)  # the include that crosses the budget is the last one
    assert f"{left} include(s) in {left} document(s) (page{expanded:02d}.md, " in warnings[0]
    assert f"and {left - 5} more) left as written" in warnings[0]  # the documents it left, named
    assert "may add 1.0 MB" in warnings[0] and "max_included_bytes" in warnings[0]
    assert f"page{expanded:02d}.md:5: snippets/big.py" in warnings[0]  # the first one left out
    assert sum(len(t) for t in pages.values()) < 1_000_000 + SNIPPET + 10_000
    assert all(f"pageword{k}" in pages[f"page{k:02d}.md"] for k in range(PAGES))
    assert len(cli.json("search", "pageword29")["results"]) >= 1


def test_default_budget_is_a_multiple_of_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = folder(tmp_path)
    monkeypatch.setattr(local, "INCLUDE_BUDGET_MIN", 100_000)
    scan = scan_folder(docs)
    raw = sum(p.stat().st_size for p in docs.glob("*.md"))
    limit = max(100_000, local.INCLUDE_BUDGET_FACTOR * raw)
    full = [d.content for d in scan.documents if "snippetline 100 " in d.content]
    kept = [d.content for d in scan.documents if "snippetline 100 " not in d.content]
    assert len(scan.documents) == PAGES and full and kept
    grown = len(full[0]) - len(kept[0])  # what one include adds to its page
    expanded = len(full)
    assert expanded == -(-limit // grown)  # includes stop once the budget is spent
    (warning,) = [w for w in scan.warnings if "left as written" in w]
    assert f"{PAGES - expanded} include(s) in {PAGES - expanded} document(s)" in warning


def test_within_the_budget_nothing_changes(tmp_path: Path) -> None:
    docs = folder(tmp_path)
    scan = scan_folder(docs)  # 6 MB of includes: under the 10 MB floor
    assert all("snippetline 100 " in d.content for d in scan.documents)
    assert not [w for w in scan.warnings if "left as written" in w]
