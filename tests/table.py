"""A simulated table: players who speak with espeak-ng, listen to the host, and answer its questions.

The players' audio goes through the real voice loop (Silero VAD, the real recognizer, the host),
so a game played here is a game played by voice, only faster than real time. The strategy is
simple and fixed: the spymaster gives a clue for N cards, the operatives name their own agents one
by one and pass; a planned last move may name the assassin. Every reveal of a card nobody meant
is counted as a wrong reveal; every question the host asks back, as an ask.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.competitive import CompetitiveGame
from engine.events import EventType
from engine.game import Phase
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.audio.wav import read_wav
from voicehost.ears.recordings import CHUNK_SECONDS
from voicehost.referee.host import Host, PendingClue
from voicehost.referee.questions import ConfirmBeforeActing, ConfirmCommand, ConfirmGuess
from voicehost.understanding import normalize
from voicehost.understanding.moment import ListenMode
from voicehost.understanding.talk import spoken_host_name

CLUE_WORDS = {  # words whisper base transcribes from espeak-ng's voices (measured): the clue is free speech
    "en": ["music", "paper", "ocean", "garden", "summer"],
    "pt-BR": ["música", "metal", "cidade"],
    "pt-PT": ["música", "papel", "cidade"],
    "it": ["musica", "città"],
}
YES = {"en": "yes", "pt": "sim", "it": "sì"}
NO = {"en": "no", "pt": "não", "it": "no"}
PASS = {"en": "pass", "pt": "passo", "it": "passo"}
UNDO = {"en": "undo that", "pt": "desfazer", "it": "annulla l'ultima"}
LEAD_INS = {"en": "I think it's the {card}", "pt": "eu acho que é {card}", "it": "scelgo {card}"}
SILENCE_S = 0.8
MAX_TRIES = 4
MAX_UNHEARD = 4


@dataclass(frozen=True)
class Voice:
    """How the players sound: an espeak-ng voice and its speed in words per minute, or a person-like test
    voice of the bench ("rhvoice:bdl", "mbrola:mb-pt1", "pico:it-IT", at its own speed); noise (SNR in dB)."""

    name: str
    speed: int = 150
    snr_db: float | None = None


def speak(text: str, voice: Voice, rng: np.random.Generator) -> Audio:
    """`text` said by the voice, at 16 kHz, with white noise at the voice's SNR."""
    audio = _person_like(text, voice.name) if ":" in voice.name else _espeak(text, voice)
    if voice.snr_db is not None:
        power = float(np.mean(audio**2)) or 1e-8
        noise = rng.normal(0.0, np.sqrt(power / 10 ** (voice.snr_db / 10)), len(audio)).astype(np.float32)
        audio = np.clip(audio + noise, -1.0, 1.0).astype(np.float32)
    return audio


def _person_like(text: str, voice_id: str) -> Audio:
    import pytest

    from bench.corpus import default_cache
    from bench.voices import VOICES, synthesize, why_unavailable

    voice = next(v for voices in VOICES.values() for v in voices if v.id == voice_id)
    missing = why_unavailable(voice)
    if missing:
        pytest.fail(f"the test voice {voice_id} is not installed ({missing}): see README, Development")
    return synthesize(voice, text, cache_dir=default_cache())


def _espeak(text: str, voice: Voice) -> Audio:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "say.wav"
        subprocess.run(
            ["espeak-ng", "-v", voice.name, "-s", str(voice.speed), "-w", str(path), text],
            check=True,
            env={**os.environ, "LC_ALL": "C.UTF-8"},
        )
        return read_wav(path)


@dataclass
class Tally:
    utterances: int = 0
    asks: int = 0  # questions the host asked back, or re-prompts
    wrong_reveals: list[str] = field(default_factory=list)
    undone: int = 0  # wrong reveals taken back by voice ("undo that", then "yes")
    game_ending_wrong: int = 0  # wrong reveals that ended the game
    failures: list[str] = field(default_factory=list)  # moves the host never understood
    audio_seconds: float = 0.0


class Table:
    """The players around one host; `chunks()` is their microphone."""

    def __init__(
        self,
        host: Host,
        voice: Voice,
        *,
        per_clue: int = 2,
        assassin_after_turns: int | None = None,
        seed: int = 0,
        noise_between: bool = False,
    ) -> None:
        self.host = host
        self.voice = voice
        self.family = host.game.board.lang.family
        self.per_clue = per_clue
        self.assassin_after_turns = assassin_after_turns
        self.rng = np.random.default_rng(seed)
        self.tally = Tally()
        self.recorded: list[Audio] = []
        self._turns = 0
        self._clue_index = 0
        self._noise_between = noise_between
        self._unheard: set[str] = set()

    # ---- the microphone ----------------------------------------------------------------------

    def chunks(self) -> Iterator[Audio]:
        yield from self._silence(0.5)
        while not self.host.game.over:
            if not (yield from self._play_move()):
                break
        yield from self._silence(0.5)

    def _silence(self, seconds: float) -> Iterator[Audio]:
        quiet = np.zeros(round(seconds * SAMPLE_RATE), dtype=np.float32)
        if self._noise_between and self.voice.snr_db is not None:
            quiet = self.rng.normal(0.0, 0.003, len(quiet)).astype(np.float32)
        yield from self._chunked(quiet)

    def _chunked(self, audio: Audio) -> Iterator[Audio]:
        size = round(CHUNK_SECONDS * SAMPLE_RATE)
        self.recorded.append(audio)
        self.tally.audio_seconds += len(audio) / SAMPLE_RATE
        for start in range(0, len(audio), size):
            yield audio[start : start + size]

    def _say(self, text: str, *, answer: bool = False) -> Iterator[Audio]:
        """One utterance; a move is said to the host by its name when it listens the addressed way (an
        answer to its question needs no name)."""
        self.tally.utterances += 1
        yield from self._chunked(speak(self.as_said(text, answer=answer), self.voice, self.rng))
        yield from self._silence(SILENCE_S)

    def as_said(self, text: str, *, answer: bool = False) -> str:
        """The words as a player says them: a move to the host by its name when it listens the addressed
        way ("host, walrus"); an answer to its question needs no name."""
        if not answer and self.host.listening is ListenMode.ADDRESSED:
            return f"{spoken_host_name(self.host.game.board.lang)}, {text}"
        return text

    # ---- the players' strategy ---------------------------------------------------------------

    def _play_move(self) -> Iterator[Audio]:
        game = self.host.game
        assert isinstance(game, CompetitiveGame)
        if game.state.phase is Phase.CLUE:
            words = CLUE_WORDS[game.board.lang.value]
            for _ in words:  # a spymaster who is not understood tries another word
                word = words[self._clue_index % len(words)]
                self._clue_index += 1
                if (yield from self._until(f"{word}, {self.per_clue}", lambda kinds: EventType.CLUE in kinds, word)):
                    return True
            return False
        if game.state.phase is not Phase.GUESS:
            self.tally.failures.append(f"unexpected phase {game.state.phase}")
            return False
        made = game.state.guesses_this_turn
        planned_end = self.assassin_after_turns is not None and self._turns >= self.assassin_after_turns
        if planned_end and self._hidden("assassin"):
            return (yield from self._guess(self._card_of("assassin")))
        # an assassin the host cannot hear from this voice: the game is played on until a team wins
        own = self._card_of(game.team.value) if self._hidden(game.team.value) else None
        if made >= self.per_clue or (own is None and made > 0):
            self._turns += 1
            return (yield from self._until(PASS[self.family], lambda kinds: EventType.TURN_ENDED in kinds))
        if own is None:  # every own agent left is one the host never heard from this voice: end the turn
            other = next(
                (self._card_of(kind) for kind in ("bystander", game.team.other.value) if self._hidden(kind)), None
            )
            if other is None:
                self.tally.failures.append("no card left this voice can make the host hear")
                return False
            return (yield from self._guess(other))
        return (yield from self._guess(own))

    def _hidden(self, identity: str) -> bool:
        try:
            self._card_of(identity)
        except AssertionError:
            return False
        return True

    def _card_of(self, identity: str) -> str:
        game = self.host.game
        assert isinstance(game, CompetitiveGame)
        for index, card in enumerate(game.board.cards):
            if not game.is_covered(index) and game.board.key[index].value == identity and card not in self._unheard:
                return card
        raise AssertionError(f"no hidden {identity} card left")

    def _guess(self, card: str) -> Iterator[Audio]:
        game = self.host.game
        phrase = card.lower() if self.tally.utterances % 3 else LEAD_INS[self.family].format(card=card.lower())
        before = len(game.events)
        to_say, answer = phrase, False
        for _ in range(MAX_TRIES):
            yield from self._say(to_say, answer=answer)
            revealed = [e["card"] for e in game.events[before:] if e.type is EventType.GUESS]
            if revealed:
                if revealed[0] != card:
                    self.tally.wrong_reveals.append(f"{revealed[0]} for {card}")
                    if game.over:  # the assassin, or the other team's last agent: nothing to take back
                        self.tally.game_ending_wrong += 1
                    else:  # as a table would: take it back (the host asks first), then go on
                        undone = yield from self._until(UNDO[self.family], lambda kinds: EventType.UNDO in kinds)
                        self.tally.undone += undone
                return True
            self.tally.asks += 1
            if isinstance(self.host.question, ConfirmGuess):
                to_say, answer = self._answer(card, self.host.pending_candidates), True
            else:
                to_say, answer = card.lower(), False
        self.tally.failures.append(f"never revealed {card}")
        self._unheard.add(card)  # a player would try another of their cards
        return len(self._unheard) < MAX_UNHEARD

    def _answer(self, card: str, offered: list[str]) -> str:
        """Yes to "Did you say X?" when X is meant; the card's name when it is one of those offered."""
        if offered == [card]:
            return YES[self.family]
        return card.lower() if card in offered else NO[self.family]

    def _is_meant(self, heard: PendingClue | None, clue_word: str) -> bool:
        """Whether the clue the host asks about is the one given: the word as it sounds (accents are
        not heard: "musica" is "música"), and the number."""
        if heard is None or not clue_word:
            return False
        lang = self.host.game.board.lang
        return normalize(heard.word, lang) == normalize(clue_word, lang) and heard.number == self.per_clue

    def _until(self, text: str, done: Callable[[set[EventType]], bool], clue_word: str = "") -> Iterator[Audio]:
        game = self.host.game
        before = len(game.events)
        for _ in range(MAX_TRIES):
            yield from self._say(text)
            for _ in range(MAX_TRIES):
                if done({event.type for event in game.events[before:]}):
                    return True
                self.tally.asks += 1
                if self.host.question is None:
                    break  # not understood: say it again
                right = isinstance(self.host.question, ConfirmCommand | ConfirmBeforeActing) or self._is_meant(
                    self.host.pending_clue, clue_word
                )
                yield from self._say(YES[self.family] if right else NO[self.family], answer=True)
        self.tally.failures.append(f"never understood {text!r}")
        return False


def lang_family(lang: Lang) -> str:
    return lang.family
