#!/usr/bin/env python3
"""find_api on libraries nobody tuned for: Flask 3.1.3, click 8.5.1, jinja2 3.1.6 and
marshmallow 4.4.0 (issue 5); arrow 1.4.0, more-itertools 11.2.1 and requests 2.32.3 held out (issue 22: their
task sets were committed before any run on them, benchmarks/HELDOUT.md, and are only reported);
lancedb 0.40.0's blind set (benchmarks/lancedb_api.jsonl) with its docs from
../shared/corpora/lancedb (installed without dependencies: griffe reads it statically).

The task sets (benchmarks/flask_api.jsonl, 20 tasks; click_api.jsonl, 15; jinja2_api.jsonl,
20; marshmallow_api.jsonl, 20) were written by helper sessions that saw the libraries and
their docs but never docmentor's results, in the format of ../shared/eval/httpx_api.jsonl,
and pass ../shared/eval/check_api_set.py. jinja2's and marshmallow's came last and are the
hardest: their paraphrases share few words with the docs (jinja2 also exposes its
compiler, lexer and nodes as public modules: 1,125 APIs).

For each library: a venv with it (``pip install LIB==VERSION``, reused when it exists), its
documentation from the sdist on PyPI (``pip download --no-binary :all:``; Flask's docs are
reStructuredText, click's MyST Markdown with ``{eval-rst}`` fences), ``docmentor readme-llm
generate --python VENV --docs-path DOCS`` into a temporary index, then ``find_api`` (10
results) scored as ``docmentor eval api``: top-1, top-3, MRR. Needs the package index.

Usage: .venv/bin/python benchmarks/bench_api_blind.py [--json OUT] [--work DIR] [--only NAME ...] [--tours]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_api import cli, score  # noqa: E402

from docmentor.engine import Docmentor  # noqa: E402
from docmentor.evaluation import load_questions  # noqa: E402
from docmentor.library.service.service import LibraryKnowledge  # noqa: E402

# (distribution, import name, version, task set, held out): held-out sets were written and
# committed before any docmentor run on their library and are only reported (HELDOUT.md)
LIBRARIES = [
    ("flask", "flask", "3.1.3", "flask_api.jsonl", False),
    ("click", "click", "8.5.1", "click_api.jsonl", False),
    ("jinja2", "jinja2", "3.1.6", "jinja2_api.jsonl", False),
    ("marshmallow", "marshmallow", "4.4.0", "marshmallow_api.jsonl", False),
    ("lancedb", "lancedb", "0.40.0", "lancedb_api.jsonl", False),  # docs: ../shared/corpora/lancedb
    ("arrow", "arrow", "1.4.0", "arrow_api.jsonl", True),
    ("more-itertools", "more_itertools", "11.2.1", "more_itertools_api.jsonl", True),
    ("requests", "requests", "2.32.3", "requests_api.jsonl", True),  # docs: --docs requests=DIR
]
#: held-out libraries whose sdist has no docs: their docs folder is given with --docs
#: (requests: the docs/ folder of the v2.32.3 tag of psf/requests, HELDOUT.md)
DOCS_GIVEN = {"requests"}
# the new-user tours' sets whose docs ship in the sdist (benchmarks/tour_tasks/README.md): dev
# sets, run with --tours; (distribution, import name, version, task set, docs folder in the sdist)
TOURS = [
    ("typer", "typer", "0.9.0", "tour_tasks/typer_api.jsonl", "docs"),
    ("trio", "trio", "0.27.0", "tour_tasks/trio_api.jsonl", "docs/source"),
    ("werkzeug", "werkzeug", "3.0.6", "tour_tasks/werkzeug_api.jsonl", "docs"),
    ("tenacity", "tenacity", "9.0.0", "tour_tasks/tenacity_api.jsonl", "doc/source"),
    ("sqlite-utils", "sqlite_utils", "3.37", "tour_tasks/sqlite_utils_api.jsonl", "docs"),
    ("cattrs", "cattrs", "24.1.2", "tour_tasks/cattrs_api.jsonl", "docs"),
    ("jsonschema", "jsonschema", "4.23.0", "tour_tasks/jsonschema_api.jsonl", "docs"),
    ("cachetools", "cachetools", "8.0.2", "tour_tasks/cachetools_api.jsonl", "docs"),
    ("blinker", "blinker", "1.9.0", "tour_tasks/blinker_api.jsonl", "docs"),
    ("humanize", "humanize", "4.17.0", "tour_tasks/humanize_api.jsonl", "docs"),
    ("python-dateutil", "dateutil", "2.9.0.post0", "tour_tasks/dateutil_api.jsonl", "docs"),
    ("anyio", "anyio", "4.6.2", "tour_tasks/anyio_api.jsonl", "docs"),
    ("packaging", "packaging", "24.2", "tour_tasks/packaging_api.jsonl", "docs"),
    ("Markdown", "markdown", "3.7", "tour_tasks/markdown_api.jsonl", "docs"),
    ("itsdangerous", "itsdangerous", "2.2.0", "tour_tasks/itsdangerous_api.jsonl", "docs"),
    ("pluggy", "pluggy", "1.5.0", "tour_tasks/pluggy_api.jsonl", "docs"),
    ("pyparsing", "pyparsing", "3.1.4", "tour_tasks/pyparsing_api.jsonl", "docs"),
    ("sqlparse", "sqlparse", "0.5.1", "tour_tasks/sqlparse_api.jsonl", "docs/source"),
    ("babel", "babel", "2.16.0", "tour_tasks/babel_api.jsonl", "docs"),
    ("WTForms", "wtforms", "3.1.2", "tour_tasks/wtforms_api.jsonl", "docs"),
    ("boltons", "boltons", "24.0.0", "tour_tasks/boltons_api.jsonl", "docs"),
    ("PyJWT", "jwt", "2.9.0", "tour_tasks/pyjwt_api.jsonl", "docs"),
    ("watchdog", "watchdog", "4.0.2", "tour_tasks/watchdog_api.jsonl", "docs/source"),
    ("semver", "semver", "3.0.2", "tour_tasks/semver_api.jsonl", "docs"),
    ("bleach", "bleach", "6.1.0", "tour_tasks/bleach_api.jsonl", "docs"),
    ("tomlkit", "tomlkit", "0.13.2", "tour_tasks/tomlkit_api.jsonl", "docs"),
    ("urllib3", "urllib3", "2.2.3", "tour_tasks/urllib3_api.jsonl", "docs"),
    ("h11", "h11", "0.14.0", "tour_tasks/h11_api.jsonl", "docs/source"),
    ("deepdiff", "deepdiff", "8.0.1", "tour_tasks/deepdiff_api.jsonl", "docs"),
    ("beautifulsoup4", "bs4", "4.12.3", "tour_tasks/bs4_api.jsonl", "doc/source"),
    ("filelock", "filelock", "4.3.1", "tour_tasks/filelock_api.jsonl", "docs"),
    ("natsort", "natsort", "8.4.0", "tour_tasks/natsort_api.jsonl", "docs"),
    ("mistune", "mistune", "3.0.2", "tour_tasks/mistune_api.jsonl", "docs"),
    ("invoke", "invoke", "2.2.0", "tour_tasks/invoke_api.jsonl", "sites/docs"),
    ("pyserial", "serial", "3.5", "tour_tasks/pyserial_api.jsonl", "documentation"),
    ("apispec", "apispec", "6.7.1", "tour_tasks/apispec_api.jsonl", "docs"),
    ("portalocker", "portalocker", "2.10.1", "tour_tasks/portalocker_api.jsonl", "docs"),
    ("psutil", "psutil", "6.1.0", "tour_tasks/psutil_api.jsonl", "docs"),
    ("lark", "lark", "1.2.2", "tour_tasks/lark_api.jsonl", "docs"),
    ("tablib", "tablib", "3.7.0", "tour_tasks/tablib_api.jsonl", "docs"),
    ("peewee", "peewee", "3.17.8", "tour_tasks/peewee_api.jsonl", "docs"),
    ("parsel", "parsel", "1.9.1", "tour_tasks/parsel_api.jsonl", "docs"),
    ("mutagen", "mutagen", "1.47.0", "tour_tasks/mutagen_api.jsonl", "docs"),
    ("python-docx", "docx", "1.1.2", "tour_tasks/docx_api.jsonl", "docs"),
    ("Pint", "pint", "0.24.4", "tour_tasks/pint_api.jsonl", "docs"),
    ("APScheduler", "apscheduler", "3.10.4", "tour_tasks/apscheduler_api.jsonl", "docs"),
    ("pexpect", "pexpect", "4.9.0", "tour_tasks/pexpect_api.jsonl", "doc"),
    ("Mako", "mako", "1.3.5", "tour_tasks/mako_api.jsonl", "doc/build"),
    ("yarl", "yarl", "1.9.4", "tour_tasks/yarl_api.jsonl", "docs"),
    ("Pygments", "pygments", "2.18.0", "tour_tasks/pygments_api.jsonl", "doc"),
    ("glom", "glom", "25.12.0", "tour_tasks/glom_api.jsonl", "docs"),
    ("simpy", "simpy", "4.1.1", "tour_tasks/simpy_api.jsonl", "docs"),
    ("typeguard", "typeguard", "4.6.1", "tour_tasks/typeguard_api.jsonl", "docs"),
    ("pydash", "pydash", "8.1.0", "tour_tasks/pydash_api.jsonl", "docs"),
    ("funcy", "funcy", "1.18", "tour_tasks/funcy_api.jsonl", "docs"),
]


SHARED_DOCS = {"lancedb": ROOT.parent / "shared" / "corpora" / "lancedb" / "docs" / "src"}
#: extras a tour's tasks need installed (apispec's marshmallow plugin and YAML output,
#: portalocker's Redis lock: without them those modules do not import; tablib's formats, as
#: its task set was written with them)
EXTRAS = {"apispec": "[marshmallow,yaml]", "portalocker": "[redis]", "tablib": "[all]"}
NO_DEPS = {"lancedb"}  # griffe reads it statically; its dependencies (pyarrow…) are not needed


def venv_with(path: Path, requirement: str, *, no_deps: bool = False) -> Path:
    python = path / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, capture_output=True)
    extra = ["--no-deps"] if no_deps else []
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", *extra, requirement], check=True, capture_output=True
    )
    return python


def sdist_docs(work: Path, name: str, version: str, docs: str = "docs") -> Path:
    stem = f"{name.replace('-', '_')}-{version}"  # the sdist's file and folder name (PEP 625)
    # PEP 625 names are normalised to lower case (Markdown's sdist is markdown-3.7.tar.gz)
    stems = list(dict.fromkeys([f"{name}-{version}", stem, stem.lower()]))
    folders = [work / s for s in stems]
    if not any((f / docs).is_dir() for f in folders):
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
             f"{name}=={version}", "-d", str(work)],
            capture_output=True,
        )  # fmt: skip
        if done.returncode != 0:  # pip builds an sdist's metadata first; some backends fail here
            fetch_sdist(work, name, version)
        archive_path = next(p for p in (work / f"{s}.tar.gz" for s in stems) if p.exists())
        with tarfile.open(archive_path) as archive:
            archive.extractall(work, filter="data")
    return next(f / docs for f in folders if (f / docs).is_dir())


def fetch_sdist(work: Path, name: str, version: str) -> Path:
    """The release's sdist straight from PyPI's simple index (PEP 691 JSON), its sha256
    checked: pip download prepares an sdist's metadata first, which fails when its build
    backend needs a plugin the index lacks (filelock 4.3.1's python-sbom)."""
    import hashlib

    import httpx

    index = httpx.get(
        f"https://pypi.org/simple/{name}/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
        timeout=60,
        follow_redirects=True,
    ).raise_for_status()
    wanted = {
        f"{stem}-{version}.tar.gz" for stem in (name, name.replace("-", "_"), name.replace("-", "_").lower())
    }
    sdist = next(f for f in index.json()["files"] if f["filename"] in wanted)
    data = httpx.get(sdist["url"], timeout=120, follow_redirects=True).raise_for_status().content
    if hashlib.sha256(data).hexdigest() != sdist["hashes"]["sha256"]:
        raise RuntimeError(f"{sdist['filename']}: sha256 does not match the index's")
    path = work / sdist["filename"]
    path.write_bytes(data)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "docmentor-bench-blind",
                        help="venvs and sdists (reused)")  # fmt: skip
    parser.add_argument("--only", action="append", default=[], help="this library only (repeatable)")
    parser.add_argument("--docs", action="append", default=[], metavar="NAME=DIR",
                        help="a library's docs folder (needed for those whose sdist has none: requests)")  # fmt: skip
    parser.add_argument("--tours", action="store_true",
                        help="also the tours' dev sets (TOURS: every Python library of tour_tasks/)")  # fmt: skip
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    given = dict(d.split("=", 1) for d in args.docs)
    results: dict[str, Any] = {}
    runs = [(d, n, v, t, h, "docs") for d, n, v, t, h in LIBRARIES]
    if args.tours or any(o in {t[0] for t in TOURS} | {t[1] for t in TOURS} for o in args.only):
        runs += [(d, n, v, t, False, docs) for d, n, v, t, docs in TOURS]
    for dist, name, version, tasks, held_out, docs_folder in runs:
        if args.only and dist not in args.only and name not in args.only:
            continue
        if dist in DOCS_GIVEN and dist not in given:
            print(
                f"{dist}: skipped (its sdist has no docs: --docs {dist}=DIR, see HELDOUT.md)", file=sys.stderr
            )
            continue
        python = venv_with(
            args.work / f"venv-{name}", f"{dist}{EXTRAS.get(dist, '')}=={version}", no_deps=dist in NO_DEPS
        )
        if dist in given:
            docs = Path(given[dist])
        elif dist in SHARED_DOCS:
            docs = SHARED_DOCS[dist]
        else:
            docs = sdist_docs(args.work, dist, version, docs_folder)
        with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as tmp:
            db = Path(tmp) / "index"
            generated, seconds = cli(db, "readme-llm", "generate", "--library", name, "--python", str(python),
                                     "--docs-path", str(docs), "--out", str(Path(tmp) / "out"))  # fmt: skip
            os.environ["DOCMENTOR_HOME"] = str(Path(tmp) / "home")
            engine = Docmentor(db, create=False)
            try:
                scored = score(LibraryKnowledge(engine), load_questions(ROOT / "benchmarks" / tasks))
            finally:
                engine.close()
        results[name] = {
            "version": version,
            "held_out": held_out,
            "apis": generated["api_count"],
            "examples": generated["example_count"],
            "matched_examples": generated["matched_examples"],
            "docstring_examples": generated.get("docstring_examples", 0),
            "drift": generated["drift"],
            "generation_seconds": round(seconds, 2),
            **{k: scored[k] for k in ("questions", "top1", "top3", "mrr")},
            "misses": {m["id"]: m["rank"] for m in scored["misses"]},
            "misses_top": {m["id"]: m["top"] for m in scored["misses"]},
        }
    print(
        "| library | APIs | examples (matched) | from docstrings | generation | tasks | top-1 | top-3 | MRR |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        print(
            f"| {name} {r['version']}{' (held out)' if r['held_out'] else ''} | {r['apis']} | {r['examples']} ({r['matched_examples']}) | "
            f"{r['docstring_examples']} | "
            f"{r['generation_seconds']:.1f} s | {r['questions']} | {r['top1']:.3f} | {r['top3']:.3f} | {r['mrr']:.4f} |"
        )
    for name, r in results.items():
        print(f"{name} misses (rank != 1): " + ", ".join(f"{k}:{v or '-'}" for k, v in r["misses"].items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
