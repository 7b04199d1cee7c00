"""Playing through a Wyoming satellite (`--satellite HOST:PORT`): a Home Assistant voice satellite, such
as a kitchen smart speaker running wyoming-satellite, is the table's microphone and loudspeaker.

Its microphone feeds the same voice loop as a local one (the VoiceLoop, the chosen recognizer, the
echo gate); the host's speech is synthesized here and played on its speaker (`SatelliteMouth`). A
satellite that goes away (killed, frozen, its network cut) is a paused game, exactly as a microphone
that is unplugged: the host says so once and holds the sand timer, the satellite is looked for again
every second (backing off to a few), and the game goes on where it stopped once its sound arrives.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path

from engine.lang import Lang
from voicehost.ears.recognizers import make_ears, unheard_check
from voicehost.frontends.devices import DeviceError
from voicehost.frontends.voice_loop import VoiceLoop
from voicehost.mouth import Mouth, SpeechError, make_synthesizer
from voicehost.prompts import Prompts
from voicehost.referee.host import Host
from voicehost.speech_models.choice import choose_engine


@dataclass(frozen=True)
class SatelliteSettings:
    """What the player chose for playing through a satellite (from the command line)."""

    lang: Lang
    host: str
    port: int
    engine: str | None = None
    model: Path | None = None
    voice: str | None = None  # the host's voice: espeak (None) or piper
    show_heard: bool = False


class SatelliteFrontend:
    """The recognizer, the connection to the satellite and its speaker, closed in one place."""

    def __init__(self, settings: SatelliteSettings, prompts: Prompts) -> None:
        """Load the model first (the slow part, and the likeliest to be missing), then connect."""
        try:
            from voicehost.frontends.wyoming_link import SatelliteLink
            from voicehost.mouth.satellite import SatelliteMouth
        except ImportError:
            raise DeviceError("A satellite needs the wyoming library: pip install 'voicehost[satellite]'.") from None
        self.settings = settings
        choice = choose_engine(settings.engine, settings.model, settings.lang)
        self.note = choice.note
        self.ears = make_ears(choice.engine, choice.model_dir)
        self.unheard = unheard_check(self.ears, settings.lang)  # vosk: the cards outside the model's words
        self.link = SatelliteLink(settings.host, settings.port)
        self.link.open()  # SatelliteUnreachable (a DeviceError) says what to check
        try:
            synthesizer = make_synthesizer(settings.lang, settings.voice)
        except SpeechError as exc:
            print(f"voicehost: {exc} The host prints what it would say.", file=sys.stderr)
            synthesizer = None
        self.voice = SatelliteMouth(synthesizer, self.link, out=sys.stdout, err=sys.stderr)
        self.mouth: Mouth = self.voice
        self._host: Host | None = None
        print(f"voicehost: playing through the satellite {self.link.name} at {self.link.address}", file=sys.stderr)

    def run(self, host: Host) -> None:
        self._host = host
        log = sys.stderr if self.settings.show_heard else None
        VoiceLoop(host, self.ears, mouth=self.voice, log=log).run(self.link.chunks(self._lost, self._back))

    def close(self) -> None:
        """The last announcements are played first, then the satellite is let go."""
        with contextlib.suppress(Exception):  # closing must not fail the game's exit
            self.voice.close()
        self.link.close()

    def _lost(self, lost: Exception) -> None:
        print(f"voicehost: {lost}", file=sys.stderr, flush=True)
        if self._host is not None:
            self._host.microphone_lost()

    def _back(self) -> None:
        print(f"voicehost: the satellite {self.link.name} is back", file=sys.stderr, flush=True)
        if self._host is not None:
            self._host.microphone_back()
