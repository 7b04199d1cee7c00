"""What the ears heard, kept on disk: each (utterance, condition, moment) is recognized once per version
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
from voicehost.ears.heard import Heard, Recognizer
from voicehost.understanding.moment import Moment

WHISPER_CODE: Final = (
    "voicehost/ears/heard.py",
    "voicehost/ears/recognizers/whisper.py",
    "voicehost/ears/recognizers/whisper_tree.py",
    "voicehost/understanding/positions.py",
    "bench/corpus.py",
    "bench/noise.py",
    *sorted(str(path.relative_to(ROOT)) for path in (ROOT / "voicehost" / "vocab").glob("*.toml")),
)
"""What Whisper's evidence of the corpus depends on: the engine, the gate on places, the audio, and the
vocabularies (the phrases the ears score beside the cards: "pass" and "we're done", the numbers, the undos)."""
SECOND_CODE: Final = ("voicehost/ears/examples.py", "voicehost/ears/conditions.py")
"""What the second signal and the noise estimate depend on besides the encoder (`SECOND_FIELDS`)."""
SECOND_FIELDS: Final = ("examples", "snr_db")
SAME_FIELDS_CHECKED: Final = 3
"""Hearings recomputed whole when the second signal is recomputed alone: they must come out the same."""


def _version(names: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for name in names:
        path = ROOT / name
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()[:12]


def _host_voices() -> str:
    """The Piper voices installed (the second signal's examples are said by them too, where installed)."""
    from voicehost.speech_models import Manifest, ModelError
    from voicehost.speech_models.catalog import installed_path

    found = []
    for lang in ("pt-BR", "pt-PT", "it", "en"):
        try:
            spec = Manifest.load().default_for(lang, "piper")
        except ModelError:
            continue
        if installed_path(spec) is not None:
            found.append(spec.id)
    return ",".join(found)


def _second_version() -> str:
    return _version(SECOND_CODE) + (f"+{zlib.crc32(_host_voices().encode()):08x}" if _host_voices() else "")


def evidence_version() -> str:
    """The version of Whisper's evidence and of the second signal's, as the store's files are named."""
    return f"{_version(WHISPER_CODE)}-{_second_version()}"


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
    """The store: `heard` recognizes what it has not heard yet under this version of the code.

    Whisper's evidence and the second signal are kept apart: when only the second signal's code changed,
    it alone is computed again (one encoding of the utterance, as the recognizer does it, instead of the
    whole recognition), and the first few hearings so completed are recomputed whole and compared, so a
    second signal computed apart is known to be the one the recognizer computes."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        whisper, second = _version(WHISPER_CODE), _second_version()
        self.path = cache_dir.parent / f"hearings-{whisper}.jsonl"
        self.second_path = cache_dir.parent / f"second-{whisper}-{second}.jsonl"
        self._heard = _read(self.path)
        self._second = _read(self.second_path)
        self._checked = 0

    @staticmethod
    def key(utterance: Utterance, condition: Condition, moment: Moment) -> str:
        return f"{utterance.uid}|{condition.name}|{zlib.crc32(repr(moment).encode()):08x}"

    def peek(self, utterance: Utterance, condition: Condition, moment: Moment) -> Heard | None:
        """What was heard and kept, with its second signal; None when either is not kept yet."""
        key = self.key(utterance, condition, moment)
        whisper, second = self._heard.get(key), self._second.get(key)
        if whisper is None or second is None:
            return None
        kept: Heard = dataclasses.replace(from_json(whisper), **_second_of(second))
        return kept

    def heard(self, recognizer: Recognizer, utterance: Utterance, condition: Condition, moment: Moment) -> Heard:
        key = self.key(utterance, condition, moment)
        kept = self.peek(utterance, condition, moment)
        if kept is not None:
            return kept
        whisper = self._heard.get(key)
        audio = audio_of(utterance, condition, self.cache_dir)
        if whisper is None or self._checked < SAME_FIELDS_CHECKED:
            found = recognizer.recognize(audio, moment)
            if whisper is not None:  # recomputed whole: Whisper's part must be what was kept
                self._checked += 1
                before, now = _comparable(from_json(whisper)), _comparable(found)
                if before != now:
                    raise RuntimeError(f"{key}: the kept hearing differs from a fresh one ({self.path})")
            else:
                self._append(self.path, self._heard, key, to_json(found))
        else:
            found = second_signal(recognizer, from_json(whisper), audio, moment)
        self._append(self.second_path, self._second, key, {name: getattr(found, name) for name in SECOND_FIELDS})
        return found

    @staticmethod
    def _append(path: Path, known: dict[str, Any], key: str, value: dict[str, Any]) -> None:
        value = json.loads(json.dumps(value, default=_plain))
        known[key] = value
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as store:
            store.write(json.dumps({"key": key, "value": value}, ensure_ascii=False) + "\n")


def second_signal(recognizer: Any, heard: Heard, audio: Any, moment: Moment) -> Heard:
    """The second signal of a kept hearing, as `WhisperRecognizer.recognize` computes it (its own methods)."""
    encoded, _ = recognizer._encode(audio)
    cleared = dataclasses.replace(heard, examples=None, snr_db=None, timings=())
    found: Heard = recognizer._second_signal(cleared, encoded, audio, moment)
    return found


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"{type(value).__name__} cannot be kept")


def _second_of(row: dict[str, Any]) -> dict[str, Any]:
    probe = from_json({"text": "", **{name: row.get(name) for name in SECOND_FIELDS}})
    return {name: getattr(probe, name) for name in SECOND_FIELDS}


def _comparable(heard: Heard) -> Heard:
    return dataclasses.replace(heard, decode_ms=0.0, timings=(), examples=None, snr_db=None)


def _read(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                found[row["key"]] = row.get("value", row.get("heard"))
    return found
