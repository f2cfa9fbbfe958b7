# Two entry points for a fresh machine: `make prove` and `make test`. Each installs only what it
# needs into .venv (with pip's progress shown) and says where the `navproof` command is.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# parallel test workers (pytest-xdist): one per core; JOBS=1 runs the suite in one process
JOBS ?= auto
STAMP := $(VENV)/.navproof-installed
TEST_STAMP := $(VENV)/.navproof-test-installed

.PHONY: prove test check generate bench docs clean

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

## Prove every claim of the embedded default profile (exit code is CI-usable).
prove: $(STAMP)
	$(BIN)/navproof prove

## Run the whole test suite, in parallel (JOBS=auto: one worker per core).
test: $(TEST_STAMP)
	$(BIN)/python -m pytest -n $(JOBS)

## Regenerate runtime/_generated/formulas.py from the sympy derivations.
generate: $(STAMP)
	$(BIN)/navproof generate

## Lint, types, the freshness check, tests and proofs in one go.
check: $(TEST_STAMP)
	$(BIN)/python -m pip install --progress-bar on -e '.[dev]'
	$(BIN)/python -m ruff check proofs runtime specs tests bench
	$(BIN)/python -m mypy proofs specs runtime
	$(BIN)/navproof generate --check
	$(BIN)/python -m pytest -n $(JOBS)
	$(BIN)/navproof prove

## Benchmarks (numbers only; never run by the tests): the crowd step beside pyrvo, the safe
## step, peak memory per agent (20k to 1M agents) and cold start.
bench: $(TEST_STAMP)
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
