"""The command line: parse → call the library → format. Nothing else lives here.

`app.py` holds the typer app, the shared helpers and `main()`; the command modules register
on it when imported, and `docmentor --help` lists commands in registration order. `lazy.py`
turns the app into click commands one at a time: a run builds only the command it runs.
"""

from __future__ import annotations

# isort: off
from docmentor.cli.app import app, main
from docmentor.cli import sources  # noqa: F401  add, refresh, sources, remove, reindex, search, get
from docmentor.cli import assemble  # noqa: F401  assemble, the eval sub-app
from docmentor.cli import clarity  # noqa: F401  the clarity sub-app
from docmentor.cli import library  # noqa: F401  the readme-llm, api and feedback sub-apps
from docmentor.cli import repodocs  # noqa: F401  the repo-docs sub-app
from docmentor.cli import serve
from docmentor.cli import tokens  # noqa: F401  the token sub-app (after serve in --help)
from docmentor.cli import jobs  # noqa: F401  the jobs sub-app and worker

# isort: on

app.command()(serve.serve)  # after assemble, so --help lists serve where it always was

__all__ = ["app", "main"]
