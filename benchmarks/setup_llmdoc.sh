#!/usr/bin/env bash
# Create a separate venv with the baseline `llmdoc` (PyPI) for benchmarks/bench_vs_llmdoc.py.
#
#   LLMDOC_VENV   venv path            (default: <repo>/.bench/llmdoc-venv)
#   LLMDOC_HOME   private HOME for it  (default: <repo>/.bench/llmdoc-home)
#   PYTHON        interpreter to use   (default: python3)
#
# Only PyPI is used. llmdoc runs `INSTALL fts; LOAD fts` in DuckDB at start, which would
# download the extension; we pre-install the FTS extension from the `duckdb-extension-fts`
# wheel into $LLMDOC_HOME/.duckdb, so llmdoc must always run with HOME=$LLMDOC_HOME.
# Idempotent: re-running skips what is already done.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
VENV="${LLMDOC_VENV:-$repo/.bench/llmdoc-venv}"
H="${LLMDOC_HOME:-$repo/.bench/llmdoc-home}"
PY="${PYTHON:-python3}"
DUCKDB_VERSION="1.5.5"

mkdir -p "$H"
if [ ! -x "$VENV/bin/python" ]; then
  echo "creating venv $VENV" >&2
  "$PY" -m venv "$VENV"
fi

if ! "$VENV/bin/python" -c "import llmdoc, duckdb, duckdb_extension_fts, sys; sys.exit(duckdb.__version__ != '$DUCKDB_VERSION')" 2>/dev/null \
   || [ ! -x "$VENV/bin/llmdoc" ]; then
  echo "installing llmdoc duckdb==$DUCKDB_VERSION duckdb-extension-fts==$DUCKDB_VERSION" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    llmdoc "duckdb==$DUCKDB_VERSION" "duckdb-extension-fts==$DUCKDB_VERSION" \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
fi

# Install the FTS extension from the wheel into the private HOME (no download).
HOME="$H" "$VENV/bin/python" - <<PYEOF
import os, duckdb, duckdb_extension_fts
p = os.path.join(os.path.dirname(duckdb_extension_fts.__file__), "extensions", "v$DUCKDB_VERSION", "fts.duckdb_extension")
if not os.path.exists(p):
    raise SystemExit(f"fts extension not found in wheel: {p}")
con = duckdb.connect()
row = con.execute("SELECT installed FROM duckdb_extensions() WHERE extension_name = 'fts'").fetchone()
if not (row and row[0]):
    con.execute(f"INSTALL '{p}'")
con.execute("LOAD fts")  # proves it loads offline
PYEOF

# Smoke check: llmdoc's own `INSTALL fts; LOAD fts` must succeed offline with this HOME.
HOME="$H" "$VENV/bin/python" -c "import duckdb; c=duckdb.connect(); c.execute('INSTALL fts'); c.execute('LOAD fts')"

echo "llmdoc ready: venv=$VENV HOME=$H" >&2
echo "run it as: HOME=$H $VENV/bin/llmdoc" >&2
