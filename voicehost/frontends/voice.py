"""Playing by voice: a microphone or a recording in, speech out, through the same host as --text."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.lang import Lang
from voicehost.audio.samples import Audio
from voicehost.ears.microphone import Microphone, MicrophoneLost
from voicehost.ears.recognizers import make_ears, unheard_check
from voicehost.frontends.devices import microphone_chunks, no_microphone_message, recording_chunks
from voicehost.frontends.voice_loop import VoiceLoop
from voicehost.mouth import FileMouth, Mouth, PrintMouth, SpeakerMouth, make_mouth
from voicehost.prompts import Prompts
from voicehost.referee.host import Host
from voicehost.speech_models.choice import choose_engine


@dataclass(frozen=True)
class VoiceSettings:
    """What the player chose for playing by voice (from the command line)."""

    lang: Lang
    engine: str | None = None
    model: Path | None = None
    audio_in: Path | None = None
    audio_out: Path | None = None
    realtime: bool = False
    show_heard: bool = False
    voice: str | None = None  # the host's voice: espeak (None) or piper
    text_command: str = "voicehost play --text"  # the same game by typing, as the player would start it


class VoiceFrontend:
    """Everything the voice mode opened, so that it can all be closed in one place."""

    def __init__(self, settings: VoiceSettings, prompts: Prompts) -> None:
        """Load the model first (the slow part, and the likeliest to be missing), then the ears' device,
        then the voice: without a microphone the game does not start, and its one message (DeviceError)
        is all the player reads, with no word about the loudspeaker."""
        self.settings = settings
        choice = choose_engine(settings.engine, settings.model, settings.lang)
        self.note = choice.note
        self.ears = make_ears(choice.engine, choice.model_dir)
        self.unheard = unheard_check(self.ears, settings.lang)  # vosk: the cards outside the model's words
        self.microphone: Microphone | None = None
        self._voice: SpeakerMouth | FileMouth | None = None
        self._host: Host | None = None
        self._chunks: Iterator[Audio]
        if settings.audio_in is not None:
            self._chunks = recording_chunks(settings.audio_in, realtime=settings.realtime)
        else:  # the microphone keeps listening while the host talks: the loop's echo gate hears "stop"
            self._chunks, self.microphone = microphone_chunks(
                self._lost,
                self._back,
                lambda exc: no_microphone_message(prompts, exc, settings.text_command),
            )
        try:
            self._voice = make_mouth(settings.lang, settings.audio_out, voice=settings.voice)
        except BaseException:
            self.close()
            raise
        self.mouth: Mouth = self._voice if self._voice is not None else PrintMouth()

    def run(self, host: Host) -> None:
        self._host = host
        # The echo gate is for a live microphone, which hears the loudspeaker: a recording (--audio-in) never
        # holds this host's voice, and read faster than the host talks it would be taken for its echo whole.
        live = self.settings.audio_in is None
        speaking = self._voice if live and isinstance(self._voice, SpeakerMouth) else None
        VoiceLoop(host, self.ears, mouth=speaking).run(self._chunks)

    def close(self) -> None:
        if self.microphone is not None:
            self.microphone.close()
        if self._voice is not None:
            with contextlib.suppress(Exception):  # closing must not fail the game's exit
                self._voice.close()

    def _lost(self, lost: MicrophoneLost) -> None:
        print(f"voicehost: {lost}", file=sys.stderr)
        if self._host is not None:
            self._host.microphone_lost()

    def _back(self) -> None:
        if self._host is not None:
            self._host.microphone_back()
