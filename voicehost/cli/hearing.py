"""What the host makes of recordings, without a game: each utterance goes through the host's own take-up
step (`voicehost.referee.take_up`), so `voicehost hear` reports what the host would do at the table,
table talk and hedges included, never a reading of its own."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from engine.board import Board
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.audio.wav import read_wav_tail, wav_blocks
from voicehost.ears.heard import Heard, Recognizer
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import TakenUp, take_up
from voicehost.understanding import Action, HeardClue, HeardCommand, HeardGuess, Intent
from voicehost.understanding.moment import Awaited, Moment, moment_for

ACTIONS: Final = {Action.ACCEPT: "accept", Action.CONFIRM: "confirm", Action.REPROMPT: "reprompt"}
ATTENTION: Final = {
    Attention.TAKE: None,  # the action stands
    Attention.ASK_BACK: "confirm",
    Attention.HINT: "ignore",
    Attention.SORRY: "reprompt",
    Attention.IGNORE: "ignore",
}
"""What the host does, when its attention changes the action: talk is ignored, a hedge asked back."""


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


def moment_of(board: Board, phase: str) -> Moment:
    """What the host waits for in that phase, with every card of the board visible and nothing asked."""
    awaited = Awaited.GUESS if phase == "guess" else Awaited.CLUE
    return moment_for(board.lang, tuple(board.cards), board.grid.columns, awaited)


def judge(recognizer: Recognizer, audio: Audio, board: Board, phase: str, source: str) -> Verdict:
    """Recognize one utterance and take it up as the host would in that phase, every card visible."""
    moment = moment_of(board, phase)
    return verdict(recognizer.recognize(audio, moment), moment, source)


def verdict(heard: Heard, moment: Moment, source: str) -> Verdict:
    """What the host makes of what the recognizer heard (`take_up`), as `voicehost hear` reports it."""
    taken = take_up(heard, moment)
    understood = taken.understood
    action = ATTENTION[taken.verdict] or ACTIONS[understood.action]
    result: dict[str, Any] = {
        "heard": heard.text,
        "intent": understood.intent.name.lower() if action != "ignore" else Intent.UNKNOWN.name.lower(),
        "confidence": None if heard.confidence is None else round(heard.confidence, 3),
        "action": action,
        "decode_ms": round(heard.decode_ms, 1),
        "taken_as": taken.verdict.value,
    }
    if action != "ignore":
        _what(result, taken)
    if heard.alternatives:
        result["alternatives"] = [[name, round(share, 3)] for name, share in heard.alternatives]
    return Verdict(source, heard, result)


def _what(result: dict[str, Any], taken: TakenUp) -> None:
    understood = taken.understood
    if isinstance(understood, HeardGuess):
        result["card"] = understood.card
    elif isinstance(understood, HeardClue):
        result["word"] = understood.clue.word
        result["number"] = "unlimited" if understood.clue.number is None else understood.clue.number
    elif isinstance(understood, HeardCommand):
        result["command"] = understood.command.value


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
