# Two entry points for a fresh machine: `make prove` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.navproof-installed

.PHONY: prove test check generate bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

## Prove every claim of the embedded default profile (exit code is CI-usable).
prove: $(STAMP)
	$(BIN)/navproof prove

## Run the whole test suite.
test: $(STAMP)
	$(BIN)/python -m pytest

## Regenerate runtime/_generated/formulas.py from the sympy derivations.
generate: $(STAMP)
	$(BIN)/navproof generate

## Lint, types, the freshness check, tests and proofs in one go.
check: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev]'
	$(BIN)/python -m ruff check proofs runtime specs tests bench
	$(BIN)/python -m mypy proofs specs runtime
	$(BIN)/navproof generate --check
	$(BIN)/python -m pytest
	$(BIN)/navproof prove

## Benchmarks (numbers only; never run by the tests): the crowd step beside pyrvo, the safe
## step, peak memory per agent (20k to 1M agents) and cold start.
bench: $(STAMP)
	$(BIN)/python bench/orca_bench.py --json orca_bench.json
	$(BIN)/python bench/safe_step_bench.py --json safe_step_bench.json
	$(BIN)/python bench/memory_bench.py --json memory_bench.json
	$(BIN)/python bench/cold_start_bench.py --json cold_start_bench.json

clean:
	rm -rf $(VENV) build *.egg-info
