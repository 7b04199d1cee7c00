"""An "undo" garbled past its words while the next clue is awaited (`voicehost.decision.undo`): taken when one
of its phrases explains the short line nearly as well as the free transcript does, and only then."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.calibrate_moves import ASK_RATE, MIN_SAMPLES
from bench.calibrate_undo import UndoSample, undo_point
from engine.lang import Lang
from voicehost.decision import calibration, decide
from voicehost.decision.calibration import use
from voicehost.ears.heard import ClueNumbers, Heard
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import take_up
from voicehost.understanding import Action, Command, HeardClue, HeardCommand, HeardWord
from voicehost.understanding.moment import Awaited, ListenMode, Moment
from voicehost.understanding.reading import Reading

AFTER_A_REVEAL = Moment(Lang.PT_PT, Awaited.CLUE, visible=("PESCADOR", "BOTÃO"), undoable=True)
POINT = 1.0


def heard(text: str, gap: float, number_share_logit: float = -9.0) -> Heard:
    """A line while a clue is awaited: its number scored (unsure: no number stands out) and "desfaz" `gap` nats
    a token below the free transcript."""
    word = text.split()[0]
    numbers = ClueNumbers(word, -3.0, 2, (4, 2, 3), (-12.0, -12.1, number_share_logit - 3.2), -8.0)
    return Heard(text, 0.3, numbers=numbers, transcript_logprob=-8.0, undo=("desfaz", gap))


def understood(said: Heard, moment: Moment = AFTER_A_REVEAL) -> object:
    model = replace(calibration(), undo_gap=POINT)
    return decide(said, Reading(said.text, moment, said.confidence), model)


def test_a_garbled_undo_near_the_transcript_is_undo() -> None:
    said = understood(heard("deste faço.", 0.6))
    assert isinstance(said, HeardCommand) and said.command is Command.UNDO and said.action is Action.ACCEPT


def test_the_host_asks_before_taking_it_back() -> None:
    """Taken up, in the addressed way with the host's name: the undo's own question follows ("Desfazer...?")."""
    moment = replace(AFTER_A_REVEAL, listening=ListenMode.ADDRESSED, host_names=("apresentador",))
    said = heard("apresentador deste faço.", 0.6)
    use(replace(calibration(), undo_gap=POINT))
    try:
        taken = take_up(said, moment)
    finally:
        use(None)
    assert taken.verdict is Attention.TAKE
    assert isinstance(taken.understood, HeardCommand) and taken.understood.command is Command.UNDO


@pytest.mark.parametrize(
    ("said", "moment"),
    [
        (heard("deste faço.", 1.5), AFTER_A_REVEAL),  # further from the transcript than the point
        (heard("eu acho que deste faço bem", 0.6), AFTER_A_REVEAL),  # six words: talk about the game
        (replace(heard("deste faço.", 0.6), undo=None), AFTER_A_REVEAL),  # nothing to undo: not scored
        (heard("o", 0.1), AFTER_A_REVEAL),  # a stray piece of the others' talk, naming nothing ("the" in babble)
        (heard("e, sim.", 0.1), AFTER_A_REVEAL),
    ],
)
def test_otherwise_no_undo(said: Heard, moment: Moment) -> None:
    assert not (isinstance(understood(said, moment), HeardCommand))


def test_a_clue_word_alone_waits_for_its_number_whatever_an_undo_scores() -> None:
    """ "Conduttore città" (the clue's number said after a pause) is the clue's word, read plainly: the undo's
    scores weigh only lines whose words the clue phase cannot read (it was asked "undo the pass?")."""
    said = understood(heard("fruta", 0.1))
    assert isinstance(said, HeardWord) and said.word == "fruta"


def test_a_clue_read_from_the_line_comes_first() -> None:
    """ "Desfile, 2." is a clue whatever an undo scores: the clue's number is sure and written."""
    numbers = ClueNumbers("Desfile", -1.0, 2, (2, 3), (-1.0, -9.0), -2.0)
    said = Heard("Desfile, 2.", 0.8, numbers=numbers, transcript_logprob=-2.0, undo=("desfaz", 0.2))
    assert isinstance(understood(said), HeardClue)


def _sample(room: str, gap: float | None, meant: bool) -> UndoSample:
    return UndoSample("u", room, gap, False, meant)


def test_the_undo_point_keeps_the_other_lines_under_their_rate_in_every_room() -> None:
    """The widest gap at which no room has more than ASK_RATE of its other lines taken for undo: a quiet room's
    margin does not pay for a noisy one's."""
    undos = [_sample("clean", 0.01 * i, True) for i in range(MIN_SAMPLES)]
    quiet = [_sample("clean", 2.0 + 0.01 * i, False) for i in range(100)]
    noisy = [_sample("babble", 1.0 + 0.01 * i, False) for i in range(100)]
    point = undo_point(undos + quiet + noisy, shipped=None)
    assert point is not None
    within = sum(s.gap is not None and s.gap <= point for s in noisy)
    assert within <= ASK_RATE * len(noisy) < within + 1  # the noisy room sets it
    assert undo_point(undos[:3] + quiet, shipped=0.7) == 0.7  # too few undos said to choose
    assert undo_point([*undos, *(_sample("clean", 0.0, False) for _ in range(10))], shipped=0.7) is None
