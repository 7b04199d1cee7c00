"""A clue, weighed from the ears' scores of its number: any word, then a number from a small closed set.

The word is taken as transcribed; the number is the one whose ways of being said explain the audio best
after the word (`Heard.numbers`: a free transcript of "città, due" is often "città tu e"). The
confidence is the lower of the word's own probability and the number's share of the belief, so a doubtful
word is still asked back. Speech whose number stands out nowhere, or whose words the free transcript
explains far better than any number would, is no clue: the transcript's own reading stands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from engine.lang import Lang
from voicehost.decision.calibration import Calibration, calibration
from voicehost.decision.together import heard_together
from voicehost.ears.heard import ClueNumbers, Heard
from voicehost.understanding import (
    Action,
    HeardClue,
    Intent,
    SpokenClue,
    Understanding,
    normalize,
    spoken_numbers,
    understand,
)
from voicehost.understanding.clues import clue_word_in
from voicehost.understanding.reading import Reading
from voicehost.understanding.results import Phase
from voicehost.understanding.sides import side_first
from voicehost.understanding.talk import content_words, is_host_name, names_a_clue

AGREEMENT_CONFIDENCE: Final = 0.95
"""A clue number the transcript and the scores agree on."""


@dataclass(frozen=True)
class UnwrittenNumber:
    """A line heard while a clue is awaited whose transcript writes no number of its own ("Music tour"), as the
    clue gate weighs it: is there a number at all? The gate's points (`Calibration.clue_floor`,
    `Calibration.clue_gap`) are chosen on data by `bench.calibrate`, which measures this for every line."""

    share: float  # the number scored first's share of the belief among every number
    gap: float  # nats a clue's number explains the rest of the audio worse than the free transcript does


def unwritten_number(heard: Heard, reading: Reading) -> UnwrittenNumber | None:
    """What the clue gate weighs of the line; None when it weighs nothing: the line is no clue whatever its
    scores (a command, a number alone), or its transcript writes the number itself."""
    numbers = _clue_numbers(heard, reading)
    return None if numbers is None else _unwritten(numbers, reading)


def _unwritten(numbers: ClueNumbers, reading: Reading) -> UnwrittenNumber | None:
    if isinstance(reading.voiced, HeardClue):
        return None
    return UnwrittenNumber(_best(numbers)[1], numbers.whole_logprob - numbers.word_logprob - numbers.logprobs[0])


def _clue_numbers(heard: Heard, reading: Reading) -> ClueNumbers | None:
    """The scores of the line's number, unless the line cannot be a clue: a command, or a number said alone
    ("un musicato" is not the clue "un")."""
    said, numbers, lang = reading.voiced, heard.numbers, reading.moment.lang
    if numbers is None or said.intent is Intent.COMMAND:
        return None
    alone = understand(numbers.word, phase=Phase.CLUE, cards=(), lang=lang)
    number_words = {normalize(phrase, lang) for phrase, _ in spoken_numbers(lang)}
    if alone.intent is Intent.COMMAND or normalize(numbers.word, lang) in number_words or numbers.word.isdigit():
        return None
    return numbers


def admitted(weighed: UnwrittenNumber, model: Calibration) -> bool:
    """Whether a number stands out (its share reaches `clue_floor`: "ripeti" is not a clue for 7) and explains
    the rest of the audio within `clue_gap` nats of the free transcript ("di petti" is not the clue "di, 4")."""
    return weighed.share >= model.clue_floor and weighed.gap <= model.clue_gap


def clue_verdict(heard: Heard, reading: Reading, model: Calibration | None = None) -> Understanding:
    """The clue the scores of its number make of the utterance, or the transcript's own reading."""
    said, model = reading.voiced, model or calibration()
    numbers = _clue_numbers(heard, reading)
    if numbers is None:
        return said
    transcribed = said.clue if isinstance(said, HeardClue) else None
    word, spelled = _clue_word(numbers, reading)
    weighed = _unwritten(numbers, reading)
    if weighed is not None and not admitted(weighed, model):
        # not taken for a clue, unless said again (`_clue_again`)
        again = None if word is None else _clue_again(numbers, word, spelled, reading, model)
        return again or said
    value, share = clue_share(numbers, transcribed)
    if word is None:
        return said  # "Conduttore CTA2": the name said to the host, the clue's word lost after it
    # taken at once (announced, correctable before the first guess) from the calibrated share: the whole
    # table heard the word, so the word is not what is asked back (one that seems to break a rule is)
    action = Action.ACCEPT if share >= model.number_sure else Action.CONFIRM
    return _heard_clue(numbers, SpokenClue(word, value, spelled), share, action)


def _heard_clue(numbers: ClueNumbers, clue: SpokenClue, share: float, action: Action) -> HeardClue:
    """The clue by ear: written as understood (the number as scored), as sure as the less sure of the word's
    own probability and the number's share."""
    confidence = min(math.exp(numbers.word_logprob / max(1, numbers.word_tokens)), share)
    written = f"{numbers.word} {'∞' if clue.number is None else clue.number}"
    return HeardClue(written, action, confidence, clue, by_ear=True)


def _clue_word(numbers: ClueNumbers, reading: Reading) -> tuple[str | None, bool]:
    """(clue word, spelled?) of the words before the number; None when there is none, or it is the host's name."""
    lang = reading.moment.lang
    said_word = within_move(numbers.word, reading.text, lang)  # "Foust, Music": the host's name, garbled
    if reading.claimed is not None:  # "A, touro": the side said first is no part of the clue
        first = side_first(said_word, lang)
        said_word = first[1] if first is not None else said_word
    word, spelled = clue_word_in(said_word, lang)
    if word is None or is_host_name(word, lang, reading.moment.host_names):
        return None, False
    if not spelled and not names_a_clue(word, lang):  # "Tá bem, um monte.": "bem" is no clue's word
        return None, False
    return word, spelled


def number_belief(heard: Heard, reading: Reading) -> tuple[str, tuple[tuple[int | None, float], ...]] | None:
    """A line heard while a clue is awaited, as the clue it may be: its word (as compared, `normalize`) and
    the log-share of each number. The host keeps it for a line it let be (`Moment.clue_let_be`); None when
    the line has no word that could be a clue ("O que você tem?" begins with none)."""
    numbers = heard.numbers
    if numbers is None:
        return None
    word, _ = _clue_word(numbers, reading)
    return None if word is None else _belief(numbers, word, reading.moment.lang)


def _belief(numbers: ClueNumbers, word: str, lang: Lang) -> tuple[str, tuple[tuple[int | None, float], ...]] | None:
    """`number_belief` of a line whose clue word is known; None when it is no content word."""
    if not content_words(word, lang):
        return None
    top = numbers.logprobs[0]
    total = top + math.log(sum(math.exp(score - top) for score in numbers.logprobs))
    shares = tuple((value, score - total) for value, score in zip(numbers.values, numbers.logprobs, strict=True))
    return normalize(word, lang), shares


def _clue_again(
    numbers: ClueNumbers, word: str, spelled: bool, reading: Reading, model: Calibration
) -> HeardClue | None:
    """A line that alone is no clue, heard with the lines just let be whose clue word is the same word
    (`Moment.clue_let_be`): in a din "music, two" comes out "Music tour", then "music should be like", each
    number too unsure or too far from the transcript alone. Their numbers' log-shares add up, and the number
    first is asked back ("Clue: music, 2?") when it reaches the share a number needs to be taken for a
    clue at all (`Calibration.clue_floor`), never taken at once. None otherwise."""
    moment = reading.moment
    if not moment.clue_let_be:
        return None
    belief = _belief(numbers, word, moment.lang)
    if belief is None:
        return None
    same = [numbers_before for before_word, numbers_before in moment.clue_let_be if before_word == belief[0]]
    if not same:
        return None
    together = heard_together(dict(belief[1]), *(dict(numbers_before) for numbers_before in same))
    value = max(together, key=lambda number: together[number])
    top = together[value]
    share = 1.0 / sum(math.exp(score - top) for score in together.values())
    if share < model.clue_floor:
        return None
    return _heard_clue(numbers, SpokenClue(word, value, spelled), share, Action.CONFIRM)


def within_move(words: str, move: str, lang: Lang) -> str:
    """The words of the transcript's clue word that are part of the move: the host's name said first, even
    garbled ("Foust, Music" when the move is "Music 2"), is no part of the clue."""
    said, moved = normalize(words, lang).split(), normalize(move, lang).split()
    raw = words.split()
    for skip in range(len(said)):
        if said[skip:] == moved[: len(said) - skip] and len(raw) == len(said):
            return " ".join(raw[skip:])
    return words


def clue_share(numbers: ClueNumbers, transcribed: SpokenClue | None) -> tuple[int | None, float]:
    """The clue's number, and the share of the belief the clue is taken on: the number scored first's, or
    AGREEMENT_CONFIDENCE when the transcript says the same number (two readings agree)."""
    value, share = _best(numbers)
    if transcribed is not None and transcribed.number == value:
        share = max(share, AGREEMENT_CONFIDENCE)
    return value, share


def _best(numbers: ClueNumbers) -> tuple[int | None, float]:
    """The number scored first and its share of the belief among every number."""
    top = numbers.logprobs[0]
    total = sum(math.exp(score - top) for score in numbers.logprobs)
    return numbers.values[0], 1.0 / total
