"""The answers a table's games give the answers' points (`bench/calibrate_answers.py`): each line heard while
a yes-or-no question waits, kept with what the player answered; moves said over a question left out."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from bench.calibrate_answers import _AnswersHeard
from bench.calibrate_moves import MoveSample
from engine.lang import Lang
from voicehost.audio.samples import Audio
from voicehost.ears.heard import Heard, MomentSource
from voicehost.understanding.moment import Awaited, Moment

CARDS = ("CEREJA", "PIANO", "OCEANO")
ASKED = Moment(Lang.PT_PT, Awaited.GUESS, visible=CARDS, asked=True, offers=("CEREJA",))
GUESSING = Moment(Lang.PT_PT, Awaited.GUESS, visible=CARDS)


class _Ears:
    """The player says each line (`Table.saying`), and the ears hand what they heard of it."""

    def __init__(self, table: _Table, lines: list[tuple[str, bool, Heard]]) -> None:
        self._table, self._lines = table, lines

    def utterances(self, chunks: Iterable[Audio], moment: MomentSource, *_: Any) -> Iterator[Heard]:
        for text, answering, heard in self._lines:
            self._table.saying = (text, answering)
            yield heard


class _Host:
    def __init__(self, moments: list[Moment]) -> None:
        self._moments = moments

    def moment(self) -> Moment:
        return self._moments.pop(0)


class _Table:
    saying: tuple[str, bool] | None = None


def test_each_answer_heard_at_a_question_is_kept_with_what_was_answered() -> None:
    """ "CEREJA?" answered "não" heard "Sim." (a false yes), then "sim" heard "Sim."; a move said over the
    question ("piano") and a line heard while no question waits are not answers: left out."""
    table = _Table()
    said = [("não", True, ASKED), ("sim", True, ASKED), ("piano", False, ASKED), ("sim", True, GUESSING)]
    host = _Host([moment for _, _, moment in said])
    found: list[MoveSample] = []
    inner = _Ears(table, [(text, answering, Heard("Sim.", 0.9)) for text, answering, _ in said])
    ears = _AnswersHeard(inner, host, table, found, "pt-PT|babble-10-reverb|0", "babble-10-reverb")  # type: ignore[arg-type]
    assert len(list(ears.utterances([], lambda: ASKED))) == len(said)  # every line still reaches the host
    assert [(s.meant, s.command, s.right, s.condition) for s in found] == [
        ("no", "yes", False, "babble-10-reverb"),
        ("yes", "yes", True, "babble-10-reverb"),
    ]
