"""--key-audio: the earpiece, a second mouth that only a blind spymaster hears (see referee/earpiece.py).

DEVICE is a sound output (a Bluetooth earpiece) by its PortAudio index or a part of its name, as
`python3 -m sounddevice` lists them, or a WAV file (a name ending in .wav, or a path with a folder):
the same two kinds of places as the host's own voice (`--audio-out`). It speaks in the game's language,
in the voice the host uses (espeak-ng, or Piper with --voice piper), and never prints what it says: the
console and standard output are the table's. A device or file that cannot be used stops the game before
it starts, with a message in the game's language (`EarpieceError`, a `SpeechError`).
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

from engine.lang import Lang
from voicehost.mouth import make_synthesizer
from voicehost.mouth.base import SpeechError, SpeechSynthesizer
from voicehost.mouth.recording import FileMouth
from voicehost.mouth.speaker import SoundDeviceOutput, SpeakerMouth, _sounddevice
from voicehost.prompts import Prompts
from voicehost.storage.errors import reason_key


class EarpieceError(SpeechError):
    """The earpiece asked for cannot be used: the message says why, in the game's language."""


class _Unprinted(io.StringIO):
    """Where the earpiece's lines would be printed: nowhere (standard output is public)."""

    def write(self, text: str) -> int:
        return len(text)


Earpiece = FileMouth | SpeakerMouth


def is_file(target: str) -> bool:
    """A WAV file rather than a sound device: a name ending in .wav, or a path with a folder in it."""
    return target.strip().lower().endswith(".wav") or "/" in target or os.sep in target


def device_of(target: str) -> int | str:
    """A device's index when DEVICE is a number, else (a part of) its name."""
    text = target.strip()
    return int(text) if text.isdigit() else text


def open_earpiece(target: str, lang: Lang, prompts: Prompts, voice: str | None = None) -> Earpiece:
    """The earpiece DEVICE names (a sound output or a WAV file), speaking `lang`; EarpieceError when it
    cannot be used or no voice can speak."""
    try:
        synthesizer = make_synthesizer(lang, voice)
    except SpeechError as exc:
        raise EarpieceError(prompts.text("earpiece.no_voice", reason=str(exc))) from None
    if is_file(target):
        return _file_earpiece(Path(target), synthesizer, prompts)
    return _device_earpiece(target, synthesizer, prompts)


def _file_earpiece(path: Path, synthesizer: SpeechSynthesizer, prompts: Prompts) -> FileMouth:
    def refused(key: str) -> EarpieceError:
        return EarpieceError(prompts.text("earpiece.no_file", file=str(path), reason=prompts.text(f"os_reason.{key}")))

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab"):  # the reason in the game's language; FileMouth then writes it afresh
            pass
    except OSError as exc:
        raise refused(reason_key(exc)) from None
    try:
        return FileMouth(path, synthesizer, out=_Unprinted(), err=sys.stderr)
    except SpeechError:
        raise refused("other") from None


def _device_earpiece(target: str, synthesizer: SpeechSynthesizer, prompts: Prompts) -> SpeakerMouth:
    device = device_of(target)

    def refused(reason: str) -> EarpieceError:
        return EarpieceError(prompts.text("earpiece.no_device", device=target, reason=reason))

    try:
        sd = _sounddevice()
    except SpeechError as exc:
        raise refused(str(exc)) from None
    try:
        info = sd.query_devices(device, kind="output")
    except (ValueError, sd.PortAudioError) as exc:
        raise refused(str(exc) or type(exc).__name__) from None
    if int(info.get("max_output_channels", 1)) < 1:
        raise refused(f"{info.get('name', target)}: no output")
    return SpeakerMouth(synthesizer, make_output=lambda: SoundDeviceOutput(device), out=_Unprinted(), err=sys.stderr)
