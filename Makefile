# Two commands for a fresh machine: `make play` (set up, then host a game) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=

.PHONY: setup play test lint bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

play: setup
	$(BIN)/voicehost play $(ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check engine
	$(BIN)/mypy engine voicehost

test: lint
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
