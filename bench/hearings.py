"""What the ears heard, kept on disk: each (utterance, condition, context) is recognized once per version
of the ears' code, and the recognition tables and the calibration read the same evidence.

A `Heard` is all the decision step reads (the transcript, the scores, the second signal), so refitting the
calibration or changing a feature re-reads it instead of running Whisper again: a change to the decision
costs seconds, not hours. The store is one JSON-lines file per version of the code the evidence depends on
(`hearings-<version>.jsonl` beside the speech cache), appended to as utterances are heard: an interrupted
run keeps what it heard.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import typing
import zlib
from pathlib import Path
from typing import Any, Final

from bench import ROOT
from bench.corpus import Condition, Utterance, audio_of
from voicehost.ears.context import Context
from voicehost.ears.heard import Heard, Recognizer

EVIDENCE_CODE: Final = (
    "voicehost/ears/heard.py",
    "voicehost/ears/recognizers/whisper.py",
    "voicehost/ears/recognizers/whisper_tree.py",
    "voicehost/ears/examples.py",
    "voicehost/ears/conditions.py",
    "voicehost/understanding/positions.py",
    "bench/corpus.py",
    "bench/noise.py",
    "bench/places.py",
)
"""What a `Heard` of the corpus depends on: the engine, the second signal, the gate on places, the audio."""


def evidence_version() -> str:
    digest = hashlib.sha256()
    for name in EVIDENCE_CODE:
        path = ROOT / name
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()[:12]


def to_json(heard: Heard) -> dict[str, Any]:
    return dataclasses.asdict(heard)


def from_json(data: dict[str, Any], cls: type[Any] = Heard) -> Any:
    """A dataclass (Heard, and the dataclasses in its fields) from `to_json`'s dict; unknown keys dropped."""
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if field.name not in data:
            continue
        value = data[field.name]
        nested = _dataclass_in(hints[field.name])
        if isinstance(value, dict) and nested is not None:
            value = from_json(value, nested)
        elif isinstance(value, list):
            value = _tuples(value)
        values[field.name] = value
    return cls(**values)


def _dataclass_in(hint: Any) -> type[Any] | None:
    for candidate in (hint, *typing.get_args(hint)):
        if dataclasses.is_dataclass(candidate) and isinstance(candidate, type):
            return candidate
    return None


def _tuples(value: Any) -> Any:
    return tuple(_tuples(item) for item in value) if isinstance(value, list) else value


class Hearings:
    """The store: `heard` recognizes what it has not heard yet under this version of the code."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self.path = cache_dir.parent / f"hearings-{evidence_version()}.jsonl"
        self._known: dict[str, Heard] = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    self._known[row["key"]] = from_json(row["heard"])

    @staticmethod
    def key(utterance: Utterance, condition: Condition, context: Context) -> str:
        return f"{utterance.uid}|{condition.name}|{zlib.crc32(repr(context).encode()):08x}"

    def known(self, utterance: Utterance, condition: Condition, context: Context) -> Heard | None:
        return self._known.get(self.key(utterance, condition, context))

    def heard(self, recognizer: Recognizer, utterance: Utterance, condition: Condition, context: Context) -> Heard:
        key = self.key(utterance, condition, context)
        found = self._known.get(key)
        if found is None:
            found = recognizer.recognize(audio_of(utterance, condition, self.cache_dir), context)
            self._known[key] = found
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as store:
                store.write(json.dumps({"key": key, "heard": to_json(found)}, ensure_ascii=False) + "\n")
        return found
