"""The ears ask their recognizer to make a board's needs ahead (`Preparing`): when they start listening
(the board dealt or resumed) and after each utterance the host has acted on (a new game dealt by voice),
so that the board's first guess does not wait for its examples. A recognizer without it is left alone."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from voicehost.audio.samples import Audio
from voicehost.ears.heard import Heard, Preparing
from voicehost.ears.streams import SegmentedEars
from voicehost.ears.vad import Utterance


class TwoUtterances:
    """Stands in for the voice activity detector: two utterances, whatever the chunks."""

    def utterances(self, chunks: Iterable[Audio], **_: Callable[..., Any]) -> Iterator[Utterance]:
        for start in (0.0, 2.0):
            yield Utterance(np.zeros(1600, np.float32), start, start + 0.1, start + 0.4)


class Remembering:
    """A recognizer that notes which boards it was asked to prepare."""

    def __init__(self) -> None:
        self.prepared: list[str] = []

    def recognize(self, audio: Audio, moment: Any) -> Heard:
        return Heard("new game", 0.9)

    def prepare(self, moment: Any, *, wait: bool = False) -> None:
        assert not wait  # the ears never block the stream on it
        self.prepared.append(moment)


class Plain:
    def recognize(self, audio: Audio, moment: Any) -> Heard:
        return Heard("cherry", 0.9)


def test_the_board_is_prepared_when_listening_starts_and_after_each_move() -> None:
    recognizer = Remembering()
    assert isinstance(recognizer, Preparing)
    board = ["first board"]
    ears = SegmentedEars(recognizer, TwoUtterances())  # type: ignore[arg-type]
    heard = []
    for utterance in ears.utterances([], lambda: board[0]):  # type: ignore[arg-type, return-value]
        heard.append(utterance.text)
        assert recognizer.prepared[0] == "first board"  # before the first utterance was handed over
        board[0] = f"board after move {len(heard)}"  # the host acted: "new game" dealt another board
    assert heard == ["new game", "new game"]
    assert recognizer.prepared == ["first board", "board after move 1", "board after move 2"]


def test_a_recognizer_that_prepares_nothing_is_left_alone() -> None:
    """Nor is its moment asked before the first line: a stream's moment may know nothing yet (the memory
    bench's, whose moment is the line being said, failed so)."""
    assert not isinstance(Plain(), Preparing)
    said: list[str] = []

    def moment() -> str:
        return said[-1]  # IndexError before the first line, as the bench's

    def lines() -> Iterator[Utterance]:
        for utterance in TwoUtterances().utterances([]):
            said.append("board")
            yield utterance

    class Said:
        def utterances(self, chunks: Iterable[Audio], **_: Callable[..., Any]) -> Iterator[Utterance]:
            return lines()

    ears = SegmentedEars(Plain(), Said())  # type: ignore[arg-type]
    assert [h.text for h in ears.utterances([], moment)] == ["cherry", "cherry"]  # type: ignore[arg-type]
