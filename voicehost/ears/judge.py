"""`voicehost hear`: what the host would understand from a recording (or the microphone), and what
it would do with it, without playing a game. For tuning a model, a microphone, a room."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from engine.board import Board
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.audio.wav import read_wav_tail, wav_blocks
from voicehost.decision import decide
from voicehost.ears.context import Context, make_context
from voicehost.ears.heard import Heard, Recognizer
from voicehost.understanding import Action, Grid, HeardClue, HeardCommand, HeardGuess
from voicehost.understanding import Phase as Listening

ACTIONS = {Action.ACCEPT: "accept", Action.CONFIRM: "confirm", Action.REPROMPT: "reprompt"}


@dataclass(frozen=True)
class Verdict:
    """One utterance: what was heard, what it means, and what the host would do."""

    source: str
    heard: Heard
    result: dict[str, Any]

    def line(self) -> str:
        result = self.result
        what = (
            result.get("card")
            or result.get("command")
            or (f"{result['word']} {result['number']}" if "word" in result else "")
        )
        confidence = "-" if result["confidence"] is None else f"{result['confidence']:.2f}"
        return (
            f"{self.source}: heard {result['heard']!r} -> {result['intent']} {what} "
            f"({result['action']}, confidence {confidence}, {result['decode_ms']:.0f} ms)"
        )

    def json(self) -> str:
        return json.dumps({"file": self.source, **self.result}, ensure_ascii=False)


def context_for(board: Board, phase: str) -> Context:
    """What the host listens for in that phase, as `Host.listening_context` builds it (fillers too)."""
    return make_context(board.lang, phase == "guess", tuple(board.cards))


def judge(recognizer: Recognizer, audio: Audio, board: Board, phase: str, source: str) -> Verdict:
    """Recognize one utterance and read it as the host would in that phase, with every card visible."""
    return read(recognizer.recognize(audio, context_for(board, phase)), board, phase, source)


def read(heard: Heard, board: Board, phase: str, source: str) -> Verdict:
    """What the host makes of what the recognizer heard."""
    listening = Listening.GUESS if phase == "guess" else Listening.CLUE
    grid = Grid(tuple(board.cards), board.grid.columns)  # a card may be named by its place too
    understood = decide(heard, phase=listening, cards=board.cards, lang=board.lang, grid=grid)
    result: dict[str, Any] = {
        "heard": heard.text,
        "intent": understood.intent.name.lower(),
        "confidence": None if heard.confidence is None else round(heard.confidence, 3),
        "action": ACTIONS[understood.action],
        "decode_ms": round(heard.decode_ms, 1),
    }
    if isinstance(understood, HeardGuess):
        result["card"] = understood.card
    elif isinstance(understood, HeardClue):
        result["word"] = understood.clue.word
        result["number"] = "unlimited" if understood.clue.number is None else understood.clue.number
    elif isinstance(understood, HeardCommand):
        result["command"] = understood.command.value
    if heard.alternatives:
        result["alternatives"] = [[name, round(share, 3)] for name, share in heard.alternatives]
    return Verdict(source, heard, result)


SHORT_RECORDING_SECONDS: Final = 12.0
"""A recording this long or shorter is one utterance, heard whole (the voice activity detector's own
longest utterance). A longer one is cut as the host cuts the microphone's stream, and its last
utterance is judged: that is where a player's answer comes ("... no, wait: the oyster"). Read block
by block, so memory stays bounded whatever the length."""


def judge_files(recognizer: Recognizer, board: Board, phase: str, files: Sequence[Path]) -> Iterator[Verdict]:
    for path in files:
        yield judge(recognizer, utterance_of(path), board, phase, str(path))


def utterance_of(path: Path) -> Audio:
    """The recording, or for a long one its last utterance (see SHORT_RECORDING_SECONDS)."""
    head = read_wav_tail(path, SHORT_RECORDING_SECONDS + 1.0)
    if len(head) <= SHORT_RECORDING_SECONDS * SAMPLE_RATE:
        return head
    try:
        from voicehost.ears.vad import Segmenter, VadError

        last = None
        for utterance in Segmenter().utterances(wav_blocks(path)):
            last = utterance.audio
    except (ImportError, VadError):  # vosk alone, without the whisper extra's VAD: the last seconds
        return read_wav_tail(path, SHORT_RECORDING_SECONDS)
    return last if last is not None else head[-round(SHORT_RECORDING_SECONDS * SAMPLE_RATE) :]
