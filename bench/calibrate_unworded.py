"""The point from which, in the open way of playing, a card the words do not name is acted on at once.

In the open way the host hears everything said at the table. A card the ears find only in the scores, from
speech whose transcript names no card ("Sou na nu." for "soldado"), may be table talk heard badly, so it
was always asked back ("SOLDADO?"): a question on most moves of a voice Whisper garbles. Here the cards of
the test board said by the tuning voices, alone and after a lead-in, and the table talk of the corpus are
heard as the host hears them while a team guesses (through the store of hearings), taken up as the open
way takes them up (`voicehost.referee.take_up`), and for each line whose card is found only by the scores
the card's probability, how many words the transcript has, and whether acting on it would be right (talk
never is) are kept. The point is a probability (never below the cards' own `act`) and a most words: the one
that acts on the most right cards while at most one act in 1/WRONG_RATE is wrong, on no line of table talk
(talk is never a move by the scores alone: a table talks far more than the corpus does, and a card revealed
when nobody moved is the worst mistake a host makes), and on at least MIN_LINES_TAKEN lines (fewer say nothing
of the wrong ones). Talk that names a card by a slip ("Secondo menone è il calcino.", 5 words, at 0.9997)
is what the words' count keeps out: the probability alone cannot.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from bench.calibrate_moves import ASK_RATE, WRONG_RATE, Measured
from bench.corpus import Condition, Utterance, boards
from bench.hearings import Hearings
from bench.places import PLACE_KINDS
from voicehost.decision import calibration
from voicehost.referee.take_up import take_up, unworded_card, unworded_place
from voicehost.understanding import HeardGuess, Understanding
from voicehost.understanding.moment import Awaited, moment_for
from voicehost.understanding.reading import Reading

MIN_LINES_TAKEN: Final = 50
"""A point that acts on fewer lines than this says nothing about its wrong ones: none is chosen."""


@dataclass(frozen=True)
class UnwordedSample:
    uid: str
    condition: str
    probability: float | None = None  # the card's, when the open way would ask it back only for its words
    words: int = 0  # the transcript's
    right: bool = False  # the card meant (talk: never)
    talk: bool = False  # a line of table talk
    shaped_as_talk: bool = False  # its words read as talk ("and generally I am the main problem." for "engineer")


@dataclass(frozen=True)
class UnwordedPoint:
    act: float | None  # None: never acted on at once
    words: int

    def takes(self, sample: UnwordedSample) -> bool:
        """Whether a line found only by the scores reaches this point: as sure, in as few words."""
        return (
            self.act is not None
            and sample.probability is not None
            and sample.probability >= self.act
            and sample.words <= self.words
        )


def collect_unworded(
    recognizer: Any, utterances: Sequence[Utterance], conditions: Sequence[Condition], cache: Path, measured: Measured
) -> list[UnwordedSample]:
    """The test board's cards (alone and after a lead-in) and the table talk, in each condition, as the open
    way takes them up while a team guesses."""
    todo = [
        (u, c) for c in conditions for u in utterances if u.board == "test" and u.kind in ("card", "lead-in", "talk")
    ]
    # the probabilities are the shipped guess model's: samples of another model are measured apart
    shipped = calibration().to_dict()
    guess = {key: shipped[key] for key in ("guess", "guess_by_lang") if key in shipped}
    model = hashlib.sha256(json.dumps(guess, sort_keys=True).encode()).hexdigest()[:8]
    measure = _measured_where(recognizer, cache, unworded_card)
    return list(measured(f"unworded-talk-lines-{model}", todo, measure, lambda row: UnwordedSample(**row), cache))


def _measured_where(
    recognizer: Any, cache: Path, scores_alone: Callable[[Understanding, Reading], bool]
) -> Callable[[Utterance, Condition], UnwordedSample]:
    """How one line is measured: taken up as the open way takes it up while a team guesses, and, where
    `scores_alone` says its card was found only by the scores, the card's probability, how many words the
    transcript has, and whether acting on it would be right (talk never is)."""
    store = Hearings(cache)

    def measure(utterance: Utterance, condition: Condition) -> UnwordedSample:
        moment = moment_for(utterance.lang, tuple(boards(utterance.lang)["test"].cards), 5, Awaited.GUESS)
        taken = take_up(store.heard(recognizer, utterance, condition, moment), moment)
        understood = taken.understood
        talk = utterance.kind == "talk"
        if not isinstance(understood, HeardGuess) or not scores_alone(understood, taken.reading):
            return UnwordedSample(utterance.uid, condition.name, talk=talk)
        right = not talk and understood.card == utterance.card
        words = len(taken.reading.text.split())
        return UnwordedSample(
            utterance.uid, condition.name, understood.confidence, words, right, talk, shaped_as_talk=taken.form.talk
        )

    return measure


def unworded_point(samples: Sequence[UnwordedSample], act: float) -> UnwordedPoint:
    """The probability (from the cards' `act` up) and the most words that act on the most right cards found
    only by the scores, wrong at most WRONG_RATE of the time, on no line of talk and on MIN_LINES_TAKEN lines at
    least; the highest probability and the fewest words of those that act on as many."""
    found = [s for s in samples if s.probability is not None and s.probability >= act and not s.shaped_as_talk]
    return _most_right(found, _safe)


def _safe(taken: list[UnwordedSample], right: int) -> bool:
    """A point may take these lines: wrong at most WRONG_RATE of the time, no talk, MIN_LINES_TAKEN at least."""
    wrong_ok = len(taken) - right <= WRONG_RATE * len(taken) and not any(s.talk for s in taken)
    return wrong_ok and len(taken) >= MIN_LINES_TAKEN


def collect_unworded_places(
    recognizer: Any, utterances: Sequence[Utterance], conditions: Sequence[Condition], cache: Path, measured: Measured
) -> list[UnwordedSample]:
    """The test board's places said (alone and after a lead-in), its cards said by name and the table talk, in
    each condition, as the open way takes them up while a team guesses: each line whose card the scores alone
    found by its place (`unworded_place`) is a sample."""
    kinds = ("card", "lead-in", "talk", *PLACE_KINDS)
    todo = [(u, c) for c in conditions for u in utterances if u.board == "test" and u.kind in kinds]
    shipped = calibration().to_dict()  # the probabilities are the shipped place model's
    model = hashlib.sha256(json.dumps(shipped.get("place"), sort_keys=True).encode()).hexdigest()[:8]
    measure = _measured_where(recognizer, cache, unworded_place)
    return list(measured(f"unworded-place-lines-{model}", todo, measure, lambda row: UnwordedSample(**row), cache))


def place_point(samples: Sequence[UnwordedSample], act: float) -> UnwordedPoint:
    """The probability (from the place model's `act` up) and the most words from which a card the scores alone
    found by its place is acted on at once, chosen as `unworded_point` chooses the names' (wrong at most
    WRONG_RATE of the time, on no line of talk, on MIN_LINES_TAKEN lines at least). Lines whose words read as
    talk are weighed too: a place is four words ("row two column three"), and Whisper often writes it so that
    its words read as talk ("Round one calling 1.")."""
    found = [s for s in samples if s.probability is not None and s.probability >= act]
    return _most_right(found, _safe)


def place_summary(samples: Sequence[UnwordedSample], chosen: UnwordedPoint) -> str:
    found = [s for s in samples if s.probability is not None]
    head = (
        f"cards named by a place the words do not say (open way): {len(samples)} lines, {len(found)} found by "
        f"their place only in the scores ({sum(s.right for s in found)} right, {sum(s.talk for s in found)} talk)"
    )
    if chosen.act is None:
        return f"{head}; no point keeps the wrong ones under {WRONG_RATE:.1%} on {MIN_LINES_TAKEN} lines: asked back"
    taken = [s for s in found if chosen.takes(s)]
    return (
        f"{head}; from {chosen.act:.4f} and at most {chosen.words} words, {sum(s.right for s in taken)} acted on at "
        f"once, {sum(not s.right for s in taken)} wrongly, {sum(s.talk for s in taken)} of them talk"
    )


def _most_right(found: Sequence[UnwordedSample], allowed: Callable[[list[UnwordedSample], int], bool]) -> UnwordedPoint:
    """The probability and the most words that take the most right lines of `found` among the pairs `allowed`
    (given the lines taken and how many are right); the highest probability and the fewest words of those
    that take as many. Rounded down, so that the point still takes the line it was set on."""
    best: tuple[int, float, int] | None = None
    for words in sorted({s.words for s in found}):
        for floor in sorted({s.probability for s in found if s.probability is not None}, reverse=True):
            taken = [s for s in found if UnwordedPoint(floor, words).takes(s)]
            right = sum(s.right for s in taken)
            if allowed(taken, right) and (best is None or right > best[0]):
                best = (right, floor, words)
    if best is None:
        return UnwordedPoint(None, 0)
    return UnwordedPoint(math.floor(best[1] * 1e6) / 1e6, best[2])


def talk_ask_point(samples: Sequence[UnwordedSample], ask: float) -> UnwordedPoint:
    """The probability (from the cards' `ask` up) and the most words from which a line whose words read as talk
    but whose scores alone found a card is asked back: the pair that asks about the most right cards while, in
    every room, at most ASK_RATE of the talk lines are asked (one in fifty, as for "pass?" and "undo?") and at
    least half the lines asked are right (a wrong question costs the table a "no" more than the silence did);
    the highest probability and the fewest words of those that ask as many. The probability alone cannot
    keep talk out (the corpus's talk scores a card at 0.99 as often as a card does); its length can: talk
    runs to seven or eight words, a card garbled over the others' talk to three or four."""
    shaped = [s for s in samples if s.shaped_as_talk and s.probability is not None and s.probability >= ask]
    talk_lines = Counter(s.condition for s in samples if s.talk)

    def allowed(asked: list[UnwordedSample], right: int) -> bool:
        talk = Counter(s.condition for s in asked if s.talk)
        quiet = all(talk[room] <= ASK_RATE * lines for room, lines in talk_lines.items())
        return quiet and 2 * right >= len(asked) and right > 0

    return _most_right(shaped, allowed)


def talk_ask_summary(samples: Sequence[UnwordedSample], point: UnwordedPoint) -> str:
    shaped = [s for s in samples if s.shaped_as_talk and s.probability is not None]
    head = (
        f"lines whose words read as talk, a card found by the scores alone: {len(shaped)} "
        f"({sum(s.right for s in shaped)} the card meant, {sum(s.talk for s in shaped)} table talk)"
    )
    if point.act is None:
        return f"{head}; no point keeps talk asked under {ASK_RATE:.0%} in every room: let be"
    per_room = []
    for room in sorted({s.condition for s in samples}):
        asked = [s for s in shaped if s.condition == room and point.takes(s)]
        talk = sum(1 for s in samples if s.condition == room and s.talk)
        per_room.append(
            f"{room} {sum(s.right for s in asked)} right, {sum(not s.right and not s.talk for s in asked)} "
            f"another card, {sum(s.talk for s in asked)} of {talk} talk"
        )
    return f"{head}; asked back from {point.act:.4f} in at most {point.words} words: " + "; ".join(per_room)


def unworded_summary(samples: Sequence[UnwordedSample], chosen: UnwordedPoint) -> str:
    found = [s for s in samples if s.probability is not None and not s.shaped_as_talk]
    head = (
        f"cards the words do not name (open way): {len(samples)} lines, {len(found)} found only by the scores "
        f"({sum(s.right for s in found)} right)"
    )
    if chosen.act is None:
        wrong = f"{WRONG_RATE:.1%} on {MIN_LINES_TAKEN} lines"
        return f"{head}; no point keeps the wrong ones under {wrong}: always asked back"
    taken = [s for s in found if chosen.takes(s)]
    talk = [s for s in found if s.talk]
    return (
        f"{head}, {len(talk)} of them talk; from {chosen.act:.4f} and at most {chosen.words} words, "
        f"{sum(s.right for s in taken)} acted on at once, {sum(not s.right for s in taken)} wrongly, "
        f"{sum(s.talk for s in taken)} of them talk (the cards' act is {calibration().act:.4f})"
    )
