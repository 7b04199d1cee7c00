"""Playing through a Wyoming satellite (`--satellite HOST:PORT`, or `--satellite NAME`): a Home Assistant
voice satellite, such as a kitchen smart speaker running wyoming-satellite, is the table's microphone and
loudspeaker.

Its microphone feeds the same voice loop as a local one (the VoiceLoop, the chosen recognizer, the
echo gate); the host's speech is synthesized here and played on its speaker (`SatelliteMouth`). A
satellite given by name is looked up on the network first (satellite_discovery). The game starts once
the satellite's sound arrives: one that another server holds (Home Assistant), or that streams nothing,
is told once, with what to do, and tried again until it is free. A satellite that goes away (killed,
frozen, its network cut) is a paused game, exactly as a microphone that is unplugged: the host says so
once and holds the sand timer, the satellite is looked for again every second (backing off to a few),
and the game goes on where it stopped once its sound arrives.

Everything the table is told about the satellite is in the game's language (prompts, [satellite]); what
the satellite itself does wrong reaches this module as a Problem, never as an exception's text.
"""

from __future__ import annotations

import contextlib
import itertools
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.lang import Lang
from voicehost.audio.samples import Audio
from voicehost.ears.recognizers import make_ears, unheard_check
from voicehost.frontends.devices import DeviceError
from voicehost.frontends.satellite_problems import SatelliteLost, SatelliteNotice, told, why
from voicehost.frontends.voice_loop import VoiceLoop
from voicehost.mouth import Mouth, SpeechError, make_synthesizer
from voicehost.prompts import Prompts
from voicehost.referee.host import Host
from voicehost.speech_models.choice import choose_engine


@dataclass(frozen=True)
class SatelliteSettings:
    """What the player chose for playing through a satellite (from the command line)."""

    lang: Lang
    host: str  # an address, or with no port the name the satellite gives itself, looked up on the network
    port: int | None = None
    engine: str | None = None
    model: Path | None = None
    voice: str | None = None  # the host's voice: espeak (None) or piper
    show_heard: bool = False


class SatelliteFrontend:
    """The recognizer, the connection to the satellite and its speaker, closed in one place."""

    def __init__(self, settings: SatelliteSettings, prompts: Prompts) -> None:
        """Load the model first (the slow part, and the likeliest to be missing), then find and connect
        the satellite, and wait for its first sound."""
        try:
            from voicehost.frontends.wyoming_link import SatelliteLink, SatelliteUnreachable
            from voicehost.mouth.satellite import SatelliteMouth
        except ImportError:
            raise DeviceError(prompts.text("satellite.no_wyoming")) from None
        self.settings = settings
        self.prompts = prompts
        choice = choose_engine(settings.engine, settings.model, settings.lang)
        self.note = choice.note
        self.ears = make_ears(choice.engine, choice.model_dir)
        self.unheard = unheard_check(self.ears, settings.lang)  # vosk: the cards outside the model's words
        host, port = self._where(settings)
        self.link = SatelliteLink(host, port)
        try:
            self.link.open()
        except SatelliteUnreachable as exc:
            address, reason = self.link.address, why(prompts, exc.problem)
            raise DeviceError(prompts.text("satellite.unreachable", address=address, port=port, why=reason)) from None
        try:
            synthesizer = make_synthesizer(settings.lang, settings.voice)
        except SpeechError as exc:
            print(f"voicehost: {exc} The host prints what it would say.", file=sys.stderr)
            synthesizer = None
        self.voice = SatelliteMouth(synthesizer, self.link, out=sys.stdout, err=sys.stderr)
        self.mouth: Mouth = self.voice
        self._host: Host | None = None
        self._stderr(prompts.text("satellite.playing", name=self.link.name, address=self.link.address))
        self._chunks: Iterator[Audio] = self.link.chunks(self._lost, self._back, on_notice=self._notice)
        try:
            self._first = list(itertools.islice(self._chunks, 1))  # the game starts once its sound arrives
        except BaseException:  # Ctrl+C while waiting for a busy satellite
            self.close()
            raise

    def run(self, host: Host) -> None:
        self._host = host
        VoiceLoop(host, self.ears, mouth=self.voice).run(itertools.chain(self._first, self._chunks))

    def close(self) -> None:
        """The last announcements are played first, then the satellite is let go."""
        with contextlib.suppress(Exception):  # closing must not fail the game's exit
            self.voice.close()
        self.link.close()

    # ---- finding the satellite -----------------------------------------------------------------------

    def _where(self, settings: SatelliteSettings) -> tuple[str, int]:
        """The satellite's address: as given, or looked up by its name on the network."""
        if settings.port is not None:
            return settings.host, settings.port
        from voicehost.frontends.satellite_discovery import (
            SatelliteNameTaken,
            SatelliteNotFound,
            ZeroconfMissing,
            find_satellite,
        )

        prompts = self.prompts
        self._stderr(prompts.text("satellite.searching", name=settings.host))
        try:
            found = find_satellite(settings.host)
        except ZeroconfMissing:
            raise DeviceError(prompts.text("satellite.no_zeroconf")) from None
        except SatelliteNameTaken as exc:
            first, second = exc.addresses[:2]
            raise DeviceError(prompts.text("satellite.two_found", name=exc.name, first=first, second=second)) from None
        except SatelliteNotFound as exc:
            seconds = f"{exc.seconds:g}"
            if not exc.found:
                raise DeviceError(prompts.text("satellite.none_found", name=exc.name, seconds=seconds)) from None
            found_names = ", ".join(exc.found)
            raise DeviceError(
                prompts.text("satellite.not_found", name=exc.name, seconds=seconds, found=found_names)
            ) from None
        self._stderr(prompts.text("satellite.found", name=found.shown, address=found.address))
        return found.host, found.port

    # ---- what the link reports (the voice loop's thread) -----------------------------------------------

    def _lost(self, lost: SatelliteLost) -> None:
        self._stderr(told(self.prompts, lost))
        if self._host is not None:
            self._host.microphone_lost()

    def _back(self) -> None:
        self._stderr(self.prompts.text("satellite.back", name=self.link.name))
        if self._host is not None:
            self._host.microphone_back()

    def _notice(self, notice: SatelliteNotice) -> None:
        """Busy, not streaming, or a format refused: said once, on the satellite's speaker when it is
        ours (else printed only), and on the board once the game runs."""
        text = told(self.prompts, notice)
        if self._host is not None:
            self._host.say(text, remember=False)
        else:
            self.voice.say(text)

    @staticmethod
    def _stderr(text: str) -> None:
        print(f"voicehost: {text}", file=sys.stderr, flush=True)
