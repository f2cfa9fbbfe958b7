# Two entry points for a fresh machine: `make prove` and `make test`. Each installs only what it
# needs into .venv (with pip's progress shown) and says where the `navproof` command is.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# parallel test workers (pytest-xdist): one per core; JOBS=1 runs the suite in one process
JOBS ?= auto
STAMP := $(VENV)/.navproof-installed
TEST_STAMP := $(VENV)/.navproof-test-installed
DEV_STAMP := $(VENV)/.navproof-dev-installed

.PHONY: prove cross-check test lint typecheck check generate bench docs clean

$(BIN)/python:
	@echo "== creating $(VENV) (Python virtual environment)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

# navproof itself: numpy, sympy, z3-solver (what `navproof prove` needs)
$(STAMP): pyproject.toml | $(BIN)/python
	@echo "== installing navproof and its proof tools (sympy, z3-solver, numpy)"
	$(BIN)/python -m pip install --progress-bar on -e .
	@touch $(STAMP)
	@echo "== navproof is installed: run $(BIN)/navproof, or 'source $(BIN)/activate' first"

# the test tools on top: pytest, pytest-xdist, pytest-timeout, hypothesis, cvc5 and the C++ RVO2
# reference (pyrvo)
$(TEST_STAMP): $(STAMP)
	@echo "== installing the test tools (pytest, pytest-xdist, hypothesis, pyrvo)"
	$(BIN)/python -m pip install --progress-bar on -e '.[test]'
	@touch $(TEST_STAMP)

# the lint and type tools on top (ruff, mypy)
$(DEV_STAMP): $(TEST_STAMP)
	@echo "== installing the lint and type tools (ruff, mypy)"
	$(BIN)/python -m pip install --progress-bar on -e '.[dev]'
	@touch $(DEV_STAMP)

## Lint the whole tree with ruff.
lint: $(DEV_STAMP)
	$(BIN)/python -m ruff check .

## Type-check the installed package (mypy -p navproof); the gated packages must be clean.
typecheck: $(DEV_STAMP)
	$(BIN)/python tools/typecheck.py

## Prove every claim of the embedded default profile (exit code is CI-usable).
prove: $(STAMP)
	$(BIN)/navproof prove

## Prove every claim, then have a second engine (cvc5 or yices, per obligation) re-decide every
## query z3 decided: an unknown, a rejected query or a disagreement fails. The proof
## cache is not read, so every verdict is decided afresh; the JSON record names, per query, the
## engine that decided it and its seconds.
cross-check: $(TEST_STAMP)
	$(BIN)/navproof prove --cross-check --no-cache --json cross_check.json

## Run the whole test suite, in parallel (JOBS=auto: one worker per core).
test: $(TEST_STAMP)
	$(BIN)/python -m pytest -n $(JOBS)

## Regenerate runtime/_generated/formulas.py from the sympy derivations.
generate: $(STAMP)
	$(BIN)/navproof generate

## Lint, types, the freshness check, tests and proofs in one go.
check: lint typecheck
	$(BIN)/navproof generate --check
	$(BIN)/python -m pytest -n $(JOBS)
	$(BIN)/navproof prove

## Benchmarks (numbers only; never run by the tests): first one table of the World, the safe
## step and the crowd, each with and without assertions, at 1k and 20k agents (ms, agent-steps
## per second, ratio to the ORCA-only crowd step, assertion overhead) and the World's memory per
## agent at 100k; then the crowd step beside pyrvo, the safe step, peak memory per agent (20k
## to 1M agents) and cold start.
bench: $(TEST_STAMP)
	$(BIN)/python bench/step_table.py --json step_table.json
	$(BIN)/python bench/orca_bench.py --json orca_bench.json
	$(BIN)/python bench/safe_step_bench.py --json safe_step_bench.json
	$(BIN)/python bench/memory_bench.py --json memory_bench.json
	$(BIN)/python bench/cold_start_bench.py --json cold_start_bench.json

## API reference (from the docstrings) and tutorial into site/, warnings as errors (mkdocs
## --strict). The package's three folders are laid out as one tree of links in build/docs-src.
DOCS_STAMP := $(VENV)/.navproof-docs-installed
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --progress-bar on -e '.[docs]'
	@touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	rm -rf build/docs-src && mkdir -p build/docs-src/navproof
	for f in runtime/*; do ln -s "$(CURDIR)/$$f" build/docs-src/navproof/; done
	ln -s "$(CURDIR)/proofs" build/docs-src/navproof/proofs
	ln -s "$(CURDIR)/specs" build/docs-src/navproof/specs
	$(BIN)/python -m mkdocs build --strict

clean:
	rm -rf $(VENV) build site *.egg-info
