"""When each file of a folder last changed: its git commit time, else its mtime.

One ``git log`` for the whole folder (not one per file); any problem — no git, not a
work tree, a timeout — quietly falls back to file modification times.
"""

from __future__ import annotations

import logging
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)
GIT_TIMEOUT = 20.0


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def git_commit_times(root: Path) -> dict[str, float]:
    """Relative POSIX path → last commit time (epoch seconds) for files under ``root``."""
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "log",
                "--format=%x00%ct",
                "--name-only",
                "--relative",
                "--no-renames",
                "--",
                ".",
            ],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("no git times for %s: %s", root, exc)
        return {}
    if out.returncode != 0:
        return {}
    times: dict[str, float] = {}
    stamp = 0.0
    for line in out.stdout.splitlines():
        if line.startswith("\0"):
            try:
                stamp = float(line[1:])
            except ValueError:
                stamp = 0.0
        elif line and line not in times:  # newest first: the first time seen is the last change
            times[line] = stamp
    return times


def updated_times(root: Path, rel_paths: list[str]) -> dict[str, str]:
    """ISO time of the last change of each file: git commit time when tracked, else mtime."""
    commits = git_commit_times(root)
    out: dict[str, str] = {}
    for rel in rel_paths:
        ts = commits.get(rel)
        if ts is None:
            try:
                ts = (root / rel).stat().st_mtime
            except OSError:
                continue
        out[rel] = iso(ts)
    return out
