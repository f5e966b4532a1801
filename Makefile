# The two commands of the contract: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DB     := $(CURDIR)/.docmentor-demo

.PHONY: run test lint typecheck unit browser bench bench-api eval clean

$(BIN)/docmentor: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $@

QUERY  ?= how do I connect Claude Code to the MCP server

run: $(BIN)/docmentor
	$(BIN)/docmentor --db $(DB) add docs --name docmentor-docs
	$(BIN)/docmentor --db $(DB) search "$(QUERY)" --limit 3
	@echo "--- the section found first:"
	@$(BIN)/docmentor --db $(DB) search "$(QUERY)" --limit 1 --json \
	  | $(BIN)/python -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; print(r["source"]+":"+r["path"], str(r["line_start"])+"-"+str(r["line_end"]))' \
	  | { read ref span; $(BIN)/docmentor --db $(DB) get "$$ref" --lines "$$span"; }
	@echo "--- a digest for the same question (1,500-token budget):"
	$(BIN)/docmentor --db $(DB) assemble "$(QUERY)" --max-tokens 1500

lint: $(BIN)/docmentor
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts

typecheck: $(BIN)/docmentor
	$(BIN)/mypy

# The suite runs from a copy of the repository's files (tracked, and new ones not ignored) in a
# fresh temporary folder with nothing beside it: a test that reads anything outside the
# repository (../shared, say) fails here as it would on a user's clone. The copy's src/ is
# imported first (PYTHONPATH); the .venv is this one. PYTEST_ARGS picks tests, e.g.
# `make unit PYTEST_ARGS="tests/test_fresh_clone.py"`; UNIT_IN_PLACE=1 runs in place.
# The copy's src/ is compiled to bytecode first (1 s): where PYTHONDONTWRITEBYTECODE is set,
# as on our machines, each process the tests start (CLI runs, servers, workers) would compile
# every docmentor module it imports again (0.3–0.5 s each; pytest 591 → 557 s here).
PYTEST_ARGS ?=
# The suite runs on every core, up to 4 workers (pytest-xdist; each worker starts its own
# PostgreSQL); `make unit PYTEST_WORKERS=` runs it in one process.
PYTEST_WORKERS ?= -n auto --maxprocesses 4
unit: $(BIN)/docmentor
ifeq ($(UNIT_IN_PLACE),1)
	$(BIN)/pytest -q $(PYTEST_WORKERS) $(PYTEST_ARGS)
else
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && mkdir "$$tmp/repo" && \
	git ls-files -z --cached --others --exclude-standard \
	  | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$$tmp/repo" && \
	test -f "$$tmp/repo/pyproject.toml" || { echo "make unit: cannot copy the repository's files (is git here?)" >&2; exit 1; }; \
	echo "running the tests from a copy of the repository in $$tmp/repo (nothing beside it)"; \
	"$(CURDIR)/$(BIN)/python" -m compileall -q "$$tmp/repo/src" >/dev/null && \
	cd "$$tmp/repo" && PYTHONPATH="$$tmp/repo/src" "$(CURDIR)/$(BIN)/pytest" -q -p no:cacheprovider $(PYTEST_WORKERS) $(PYTEST_ARGS)
endif

# The HTML clarity report is checked in a real headless browser: Debian's chromium.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium (Debian package) for the HTML report test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

test: lint typecheck browser unit

# The dev suite: ../shared/eval/evaluate.py on httpx, pydantic and tanstack-query, one table;
# then the whole-corpus checks (benchmarks/corpus_checks.py: what tests/ checks on slices).
# EVAL_ARGS="--via library --sweep semantic_weight=0.3,0.4" tries ranking constants in-process.
EVAL_ARGS ?=
eval: $(BIN)/docmentor
	$(BIN)/python benchmarks/eval_suite.py $(EVAL_ARGS)
	$(BIN)/pytest -q -p no:cacheprovider benchmarks/corpus_checks.py

bench: $(BIN)/docmentor
	bash benchmarks/setup_llmdoc.sh
	$(BIN)/python benchmarks/bench_vs_llmdoc.py

bench-api: $(BIN)/docmentor
	$(BIN)/python benchmarks/bench_api.py
	$(BIN)/python benchmarks/bench_api_blind.py

clean:
	rm -rf $(VENV) $(DB) .mypy_cache .pytest_cache .ruff_cache
