"""Where the players' sound comes from: the microphone or a recording, each failing with a message a
player can act on (which flag to use instead of a missing microphone)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from voicehost.audio.samples import Audio, AudioError
from voicehost.ears.microphone import NO_MICROPHONE_ADVICE, Microphone, MicrophoneLost, NoMicrophone, open_microphone
from voicehost.ears.recordings import file_chunks


class DeviceError(Exception):
    """A device the voice mode needs is missing; the message says what to do instead."""


def microphone_chunks(
    on_lost: Callable[[MicrophoneLost], None], on_back: Callable[[], None], advice: str
) -> tuple[Iterator[Audio], Microphone]:
    """Live audio from the default microphone, surviving its loss; DeviceError when there is none."""
    try:
        microphone = open_microphone()
    except NoMicrophone as exc:  # what went wrong, then what to do in the game's language, once
        raise DeviceError(f"{str(exc).replace(NO_MICROPHONE_ADVICE, '').strip()} {advice}".strip()) from None
    return microphone.resilient_chunks(on_lost, on_back), microphone


def recording_chunks(path: Path, realtime: bool) -> Iterator[Audio]:
    """--audio-in: the recording, its header checked before the game starts, then read as it is played."""
    from voicehost.audio.wav import wav_format

    try:
        wav_format(path)
    except AudioError as exc:
        raise DeviceError(f"cannot read the recording {path}: {exc}") from None
    return file_chunks(path, realtime=realtime)
