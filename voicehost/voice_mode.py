"""`voicehost play` without --text: the recognizer, the input, the mouth, and their life cycle."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.lang import Lang
from voicehost.devices import DeviceError, choose_engine, make_mouth, microphone_chunks, recording_chunks
from voicehost.ears.audio import Audio
from voicehost.ears.loop import Ears, VoiceLoop, make_ears
from voicehost.ears.microphone import Microphone, MicrophoneLost
from voicehost.prompts import Prompts
from voicehost.referee.host import Host


@dataclass
class Voice:
    """Everything the voice mode opened, so that it can all be closed in one place."""

    ears: Ears
    mouth: Any
    args: argparse.Namespace
    note: str = ""
    microphone: Microphone | None = None
    _host: Host | None = None
    _chunks: Iterator[Audio] | None = None

    @classmethod
    def open(cls, args: argparse.Namespace, lang: Lang, prompts: Prompts) -> Voice:
        """Load the model first (the slow part, and the likeliest to be missing), then the devices."""
        choice = choose_engine(args.engine, args.model, lang)
        ears = make_ears(choice.engine, choice.model_dir)
        mouth = make_mouth(lang, args.audio_out)
        voice = cls(ears, mouth, args, choice.note)
        if args.audio_in is not None:
            voice._chunks = recording_chunks(args.audio_in, realtime=args.realtime)
            return voice
        try:
            voice._chunks, voice.microphone = microphone_chunks(
                voice._lost, voice._back, prompts.text("error.no_microphone")
            )
        except DeviceError:
            if mouth is not None:
                mouth.say(prompts.text("error.no_microphone"))
                _close_mouth(mouth)
            raise
        return voice  # the microphone keeps listening while the host talks: the loop's echo gate hears "stop"

    def run(self, host: Host) -> None:
        self._host = host
        assert self._chunks is not None
        speaking = self.mouth if hasattr(self.mouth, "speaking") else None
        log = sys.stderr if self.args.show_heard else None
        VoiceLoop(host, self.ears, mouth=speaking, log=log).run(self._chunks)

    def close(self) -> None:
        if self.microphone is not None:
            self.microphone.close()
        if self.mouth is not None:
            _close_mouth(self.mouth)

    def _lost(self, lost: MicrophoneLost) -> None:
        print(f"voicehost: {lost}", file=sys.stderr)
        if self._host is not None:
            self._host.microphone_lost()

    def _back(self) -> None:
        if self._host is not None:
            self._host.microphone_back()


def _close_mouth(mouth: Any) -> None:
    close = getattr(mouth, "close", None)
    if close is not None:
        close()
