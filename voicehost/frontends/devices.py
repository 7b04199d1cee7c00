"""Where the players' sound comes from: the microphone or a recording, each failing with a message a
player can act on (the exact command that plays by text instead of a missing microphone)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from voicehost.audio.samples import Audio, AudioError
from voicehost.ears.microphone import (
    NO_MICROPHONE_ADVICE,
    Microphone,
    MicrophoneLost,
    NoMicrophone,
    NoSoundLibrary,
    open_microphone,
)
from voicehost.ears.recordings import file_chunks
from voicehost.prompts import Prompts


class DeviceError(Exception):
    """A device the voice mode needs is missing; the message says what to do instead."""


def microphone_chunks(
    on_lost: Callable[[MicrophoneLost], None], on_back: Callable[[], None], explain: Callable[[NoMicrophone], str]
) -> tuple[Iterator[Audio], Microphone]:
    """Live audio from the default microphone, surviving its loss; DeviceError when there is none, its
    message the whole of what the player reads (`explain`: what went wrong and what to do instead)."""
    try:
        microphone = open_microphone()
    except NoMicrophone as exc:
        raise DeviceError(explain(exc)) from None
    return microphone.resilient_chunks(on_lost, on_back), microphone


def what_went_wrong(exc: NoMicrophone) -> str:
    """Why there is no microphone (in English, for `voicehost hear`), without the advice to play by text."""
    return str(exc).replace(NO_MICROPHONE_ADVICE, "").strip()


def no_microphone_message(prompts: Prompts, exc: NoMicrophone, text_command: str) -> str:
    """Said once, in the game's language: what is missing and the exact command that plays the same game
    by typing (`text_command`, as the player started this one)."""
    if isinstance(exc, NoSoundLibrary):
        return prompts.text("console.no_sound_library", fix=exc.fix, command=text_command)
    return prompts.text("console.no_microphone", command=text_command)


def recording_chunks(path: Path, realtime: bool) -> Iterator[Audio]:
    """--audio-in: the recording, its header checked before the game starts, then read as it is played."""
    from voicehost.audio.wav import wav_format

    try:
        wav_format(path)
    except AudioError as exc:
        raise DeviceError(f"cannot read the recording {path}: {exc}") from None
    return file_chunks(path, realtime=realtime)
