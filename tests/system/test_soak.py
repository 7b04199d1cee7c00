"""A short soak (``bench/soak.py``): scripted games back to back in one process leave nothing behind.

The full soak is ``python bench/soak.py`` (1000 games). Here 60 games run in a subprocess of their
own, so that the RSS measured is the soak's and not pytest's, each with a sand timer (a thread that
must end with its game); and the leak detector itself is checked in-process by making games leak
on purpose.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOAK = ROOT / "bench" / "soak.py"
GAMES, EVERY, WARMUP, TOLERANCE_MB = 60, 10, 20, 10.0


def load_soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("voicehost_soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_sixty_games_in_one_process_keep_memory_flat() -> None:
    command = [sys.executable, str(SOAK), "--games", str(GAMES), "--every", str(EVERY)]
    command += ["--warmup", str(WARMUP), "--tolerance-mb", str(TOLERANCE_MB), "--timer", "600", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    summary: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    assert summary["ok"] and summary["problems"] == []
    samples = summary["samples"]
    assert [s["games"] for s in samples] == [0, *range(EVERY, GAMES + 1, EVERY)]
    assert summary["baseline_games"] == WARMUP
    assert summary["growth_mb"] <= TOLERANCE_MB
    assert all(s["live_games"] == 0 for s in samples), "a finished game is still alive"
    assert all(s["threads"] == samples[0]["threads"] for s in samples), "a sand timer outlived its game"


def test_the_soak_sees_games_left_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The detector itself: hosts kept alive after their game are reported."""
    soak = load_soak()
    kept: list[Any] = []
    original = soak.Host.__init__

    def keeping(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        kept.append(self)

    monkeypatch.setattr(soak.Host, "__init__", keeping)
    result = soak.soak(games=6, every=3, warmup=3, tolerance_mb=1000.0, quiet=True)
    assert not result.ok
    assert any("games still alive" in problem for problem in result.problems)
    assert len(kept) == 6


def test_the_soak_fails_when_a_game_goes_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game that does not end as its script says stops the soak: it is not measuring a broken host."""
    soak = load_soak()
    original = soak.Host.hear

    def deaf(self: Any, text: str, *args: Any, **kwargs: Any) -> None:
        original(self, "", *args, **kwargs)

    monkeypatch.setattr(soak.Host, "hear", deaf)
    with pytest.raises(RuntimeError, match="did not end as its script expects"):
        soak.soak(games=1, every=1, warmup=1, tolerance_mb=1000.0, quiet=True)
