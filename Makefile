# LocalMind — the two commands a fresh clone needs:
#   make run    install the app into .venv and open it
#   make test   install everything the tests need (system libraries included) and run the whole suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
PIP     = $(BIN)/python -m pip
STAMP   = $(VENV)/.installed

.PHONY: run test lint typecheck pytest venv test-deps screenshots bench-models bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install -q -e .
	touch $@

$(STAMP)-test: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e '.[test,bench]'
	touch $@

venv: $(STAMP)

run: $(STAMP)
	@scripts/system-deps.sh test
	$(BIN)/localmind $(ARGS)

test-deps: $(STAMP)-test
	@scripts/system-deps.sh test

lint: test-deps
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: test-deps
	$(BIN)/mypy

pytest: test-deps
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench-models: test-deps
	$(BIN)/python bench/make_models.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
