"""Run the CLI in-process against one index, for the CLI tests (``main(argv) -> int`` + capsys)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from docmentor.cli import main


class Cli:
    """``docmentor --db DB ...`` in-process; calls return (exit code, stdout, stderr). ``db`` is
    an index folder or a PostgreSQL URL (a ``str``: ``Path`` would fold the URL's "//")."""

    def __init__(self, db: Path | str, capsys: pytest.CaptureFixture[str]) -> None:
        self.db = Path(db)  # the folder, for tests that look into it (meaningless for a URL)
        self.location = str(db)  # what ``--db`` gets
        self.capsys = capsys

    def raw(self, *args: str) -> tuple[int, str, str]:
        """Without ``--db``: exactly the given arguments."""
        self.capsys.readouterr()
        rc = main(list(args))
        out, err = self.capsys.readouterr()
        return rc, out, err

    def __call__(self, *args: str) -> tuple[int, str, str]:
        return self.raw("--db", self.location, *args)

    def ok(self, *args: str) -> str:
        rc, out, err = self(*args)
        assert (rc, err) == (0, ""), err
        return out

    def json(self, *args: str) -> Any:
        return json.loads(self.ok(*args, "--json"))

    def fails(self, *args: str, rc: int = 1) -> str:
        """A command that must fail with one ``error:`` line on stderr, nothing on stdout and
        exit code ``rc`` (1; 2 for a usage error: see :meth:`misused`)."""
        code, out, err = self(*args)
        assert code == rc and out == "", (code, out, err)
        assert err.startswith("error: ") and err.count("\n") == 1, err
        return err

    def misused(self, *args: str) -> str:
        """A usage error (a bad option value or input file): one ``error:`` line, exit 2."""
        return self.fails(*args, rc=2)

    def state(self) -> Any:
        """What is stored, as `sources --json` shows it (None when there is no index)."""
        rc, out, _ = self("sources", "--json")
        return json.loads(out) if rc == 0 else None
