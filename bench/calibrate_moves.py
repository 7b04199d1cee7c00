"""The operating points of the moves around the cards, chosen on the tuning voices as the cards' are:
when a clue's number is sure enough to take the clue at once, when a line whose transcript writes no number is
a clue at all (the clue gate: its number's share, and how far below the free transcript it is; chosen so that
at most one line in 1/ASK_RATE that meant no clue is asked back as one), when "pass" heard unsure acts at once because
the scores agree, when "yes" or "no" heard only by the scores answers a question, and how near the free
transcript "new game" or "quit" must come once a game is over.

Each is a share of the belief the ears' scores give (the number among every number; "pass" among the
cards and "pass"; "yes" or "no" among the phrases a question offers). The point chosen is the lowest
share at which at most one move in 1/WRONG_RATE acted on at once is not the move meant, pooled over the
tuning voices and conditions (`bench.calibrate` runs it; the held-out voices are the recognition bench's).
Utterances that mean another move (the other commands, table talk, cards) are the wrong ones a point
must keep out: "repete" scores as "passo", talk as "sim".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, TypeVar

import numpy as np

from bench.corpus import (
    Condition,
    Utterance,
    answer_corpus,
    audio_of,
    boards,
    command_corpus,
    corpus,
    ending_corpus,
    voices_of,
)
from bench.voices import TestVoice
from engine.lang import Lang
from voicehost.decision import Calibration, calibration, decide
from voicehost.decision.calibration import use
from voicehost.decision.cards import answer_in_words
from voicehost.decision.clues import clue_share, unwritten_number
from voicehost.decision.decide import command_rivals, lead_share
from voicehost.decision.endings import ending_gap, ending_verdict
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import take_up
from voicehost.understanding import Action, Command, HeardClue, HeardCommand, vocabulary
from voicehost.understanding.moment import Awaited, Moment, moment_for
from voicehost.understanding.reading import Reading
from voicehost.understanding.results import READ_ONLY
from voicehost.understanding.vocabulary import ENDINGS

T = TypeVar("T")
Measured = Callable[[str, Sequence[tuple[Utterance, Condition]], Callable[[Utterance, Condition], Any], Any, Path], Any]

WRONG_RATE: Final = 0.005
"""At most one move in 200 acted on at once is not the move meant (as for the cards)."""
READ_ONLY_WRONG_RATE: Final = 0.02
"""A read-only command changes nothing ("score" read out when nobody asked costs the table a sentence):
at most one in fifty taken from the scores alone is not the one said."""
FLOOR: Final = 0.5
"""No point below this share: "yes" and "no", "pass" and a card must not be a coin's toss."""
CARDS_PER_BOARD: Final = 5
"""Cards of each board said alone that stand for speech naming a card (a pass or an answer must not be heard there)."""


@dataclass(frozen=True)
class MoveSample:
    uid: str
    condition: str
    share: float  # the share the operating point is compared with; 0 when the move was not scored first
    plain: bool  # the transcript alone read the same move (unsure): the scores confirm it
    right: bool  # the move taken is the one meant
    command: str | None = None  # the command taken, for the commands' samples: which point weighs it
    acted: bool = True  # the decision could act on it at once (a sentence scored as "pass" is only asked back)
    meant: str | None = None  # the command said, for the commands' samples (None: talk or a card)
    lang: str = ""  # the language said in, for the points a language has of its own (the answers')


MIN_SAMPLES: Final = 50
"""Fewer utterances than this scored first say nothing about a point: the point already shipped stays."""


def point(samples: Sequence[MoveSample], shipped: T, wrong_rate: float = WRONG_RATE) -> float | T:
    """The lowest share whose moves taken at once are wrong at most `wrong_rate` of the time (FLOOR at least);
    1.0 when no share keeps them under it; `shipped` when too few utterances were scored first to say.
    Samples of one share go together: a point cannot split them (every number the transcript agrees on
    has the same share)."""
    shares = sorted({s.share for s in samples if s.share > 0}, reverse=True)
    if sum(s.share > 0 for s in samples) < MIN_SAMPLES:
        return shipped
    best = 1.0
    for share in shares:
        taken = [s for s in samples if s.share >= share]
        if sum(not s.right for s in taken) <= wrong_rate * len(taken):
            best = share
    return max(FLOOR, math.floor(best * 1e6) / 1e6)  # rounded down: the share chosen still takes itself


@dataclass(frozen=True)
class WordsPoint:
    """The answers' point of the languages that answer in the same words."""

    words: str  # "sim/não"
    langs: tuple[str, ...]  # ("pt-BR", "pt-PT")
    share: float  # "yes" or "no", every wrong answer counted
    yes: float  # "yes", only the false yeses counted: a false "yes" acts (a reveal, a clue, a pass)...
    no: float  # ..."no", only the false noes, at the read-only rate: a false "no" changes nothing (a repeat)


def answer_points(samples: Sequence[MoveSample], pooled: float) -> list[WordsPoint]:
    """The answers' point of each language, chosen on the samples of every language that answers in the same
    words ("sim" and "não" for pt-BR and pt-PT), where they are enough to choose one (MIN_SAMPLES scored
    first): each language garbles its own words into others (espeak-ng's Italian "no" heard "Sì lo" in
    babble), so a point pooled over every language is set by the worst one."""
    groups: dict[str, list[str]] = {}
    for lang in sorted({s.lang for s in samples if s.lang}):
        scored = vocabulary(Lang.parse(lang)).scored_words
        groups.setdefault(f"{scored[Command.YES]}/{scored[Command.NO]}", []).append(lang)
    found = []
    for words, langs in groups.items():
        own = [s for s in samples if s.lang in langs]
        if sum(s.share > 0 for s in own) >= MIN_SAMPLES:
            either = point(own, pooled)
            yes = point([s for s in own if s.command == Command.YES.value], either)
            no = point([s for s in own if s.command == Command.NO.value], either, READ_ONLY_WRONG_RATE)
            found.append(WordsPoint(words, tuple(langs), either, yes, no))
    return found


def summary(name: str, samples: Sequence[MoveSample], chosen: float | None) -> str:
    if chosen is None:
        return f"{name}: {len(samples)} utterances; too few scored first to choose a point: never"
    meant = [s for s in samples if s.right]
    taken = [s for s in samples if s.share >= chosen]
    return (
        f"{name}: {len(samples)} utterances; from {chosen:.4f}, {sum(s.right for s in taken)} of {len(meant)} "
        f"meant taken at once, {sum(not s.right for s in taken)} taken wrongly"
    )


def collect_clues(
    recognizer: Any, utterances: Sequence[Utterance], conditions: Sequence[Condition], cache: Path, measured: Measured
) -> list[MoveSample]:
    """Each clue said ("música, três") heard while a clue is awaited: the share of its number, and whether
    the number taken is the one said."""

    def measure(utterance: Utterance, condition: Condition) -> MoveSample | None:
        moment = Moment(utterance.lang, Awaited.CLUE)
        heard = recognizer.recognize(audio_of(utterance, condition, cache), moment)
        reading = Reading(heard.text, moment, heard.confidence)
        understood = decide(heard, reading)
        if not isinstance(understood, HeardClue) or heard.numbers is None or utterance.clue is None:
            return MoveSample(utterance.uid, condition.name, 0.0, False, False)
        said = reading.said
        _, share = clue_share(heard.numbers, said.clue if isinstance(said, HeardClue) else None)
        # the share weighs the number: the word is announced as heard, and its spymaster corrects it
        right = understood.clue.number == utterance.clue[1]
        return MoveSample(utterance.uid, condition.name, share, False, right)

    todo = [(u, c) for u in utterances for c in conditions if u.kind == "clue"]
    return list(measured("clue-number", todo, measure, lambda row: MoveSample(**row), cache))


def clue_corpus(lang: Lang, voices: Sequence[TestVoice]) -> list[Utterance]:
    """The clues of `corpus` as `voices` say them at the commands' other speeds (`command_corpus`'s voices):
    the clue gate's point needs more clues whose number the transcript does not write than one saying of
    each number a voice gives."""
    paced = dict.fromkeys(u.voice for u in command_corpus(lang, voices))
    return [u for voice in paced for u in corpus(lang, [voice]) if u.kind == "clue"]


@dataclass(frozen=True)
class GateSample:
    """A line heard while a clue is awaited, as the clue gate weighs it (`voicehost.decision.clues`)."""

    uid: str
    condition: str
    meant: bool  # a clue was said
    share: float | None = None  # its number's share when the gate weighs it (None: the transcript wrote one,
    gap: float | None = None  # or the line can be no clue), and how far below the free transcript it is
    clue: bool = False  # past the gate, a clue would be taken or asked back (a word before the number)
    right: bool = False  # ...with the number said


def collect_clue_gate(
    recognizer: Any, utterances: Sequence[Utterance], conditions: Sequence[Condition], cache: Path, measured: Measured
) -> list[GateSample]:
    """Every clue said (the corpus's and `clue_corpus`'s), and what is no clue (table talk, commands, answers,
    cards said alone), heard while a clue is awaited on the test board and taken up as the open way takes
    them up (`take_up`: talk and a lone card are left alone whatever the gate says): what the clue gate
    weighs of each whose transcript writes no number, and whether, past the gate, the host would take it or
    ask it back as a clue."""
    lenient = replace(calibration(), clue_floor=0.0, clue_gap=math.inf)

    def measure(utterance: Utterance, condition: Condition) -> GateSample | None:
        cards = tuple(boards(utterance.lang)["test"].cards)
        moment = moment_for(utterance.lang, cards, 5, Awaited.CLUE)
        heard = recognizer.recognize(audio_of(utterance, condition, cache), moment)
        reading = Reading(heard.text, moment, heard.confidence)
        meant = utterance.kind == "clue"
        weighed = unwritten_number(heard, reading)
        if weighed is None:
            return GateSample(utterance.uid, condition.name, meant)
        use(lenient)
        try:
            taken = take_up(heard, moment)
        finally:
            use(None)
        understood = taken.understood
        if not isinstance(understood, HeardClue) or taken.verdict not in (Attention.TAKE, Attention.ASK_BACK):
            return GateSample(utterance.uid, condition.name, meant, weighed.share, weighed.gap)
        right = utterance.clue is not None and understood.clue.number == utterance.clue[1]
        return GateSample(utterance.uid, condition.name, meant, weighed.share, weighed.gap, True, right)

    langs = list(dict.fromkeys(u.lang for u in utterances))
    more = [u for lang in langs for u in clue_corpus(lang, voices_of(lang, "tune"))]
    todo = []
    for u in (*utterances, *more):
        card_index = boards(u.lang)[u.board].cards.index(u.card) if u.card is not None else 0
        kept = u.kind in ("clue", "talk", "command", "yes/no") or (
            u.kind == "card" and card_index % (25 // CARDS_PER_BOARD) == 0
        )
        todo += [(u, c) for c in conditions if kept]
    return list(measured("clue-gate", todo, measure, lambda row: GateSample(**row), cache))


@dataclass(frozen=True)
class GatePoint:
    floor: float
    gap: float


def gate_point(samples: Sequence[GateSample], shipped: GatePoint, number_sure: float) -> GatePoint:
    """The clue gate that lets the most clues said (their number right) through, while the lines that meant
    no clue it lets through are at most ASK_RATE of them (each asked "Clue: ..., 2?") and at most WRONG_RATE
    of them pass sure enough to be taken at once (from `number_sure`); the narrowest gate of those that let
    as many through. `shipped` when fewer than MIN_SAMPLES clues reach the gate."""
    clues = [s for s in samples if s.meant and s.clue and s.share is not None and s.gap is not None]
    others = [s for s in samples if not s.meant]
    if len(clues) < MIN_SAMPLES or not others:
        return shipped
    weighed = [s for s in others if s.clue and s.share is not None and s.gap is not None]
    other_share = np.asarray([s.share for s in weighed])
    other_gap = np.asarray([s.gap for s in weighed])
    clue_share = np.asarray([s.share for s in clues])
    clue_gap = np.asarray([s.gap for s in clues])
    right = np.asarray([s.right for s in clues])
    best: tuple[int, float, float] | None = None
    for floor in sorted({FLOOR, *(float(v) for v in clue_share if v >= FLOOR)}, reverse=True):
        for gap in sorted({float(v) for v in clue_gap}):
            through = (other_share >= floor) & (other_gap <= gap)
            if through.sum() > ASK_RATE * len(others):
                break  # wider gaps let more through
            if (through & (other_share >= number_sure)).sum() > WRONG_RATE * len(others):
                break
            gain = int(((clue_share >= floor) & (clue_gap <= gap) & right).sum())
            if best is None or gain > best[0]:
                best = (gain, floor, gap)
    if best is None:
        return GatePoint(1.0, -math.inf)
    # rounded outward: the gate chosen still lets its own edge through
    return GatePoint(math.floor(best[1] * 1e6) / 1e6, math.ceil(round(best[2] * 1000, 6)) / 1000)


def gate_summary(samples: Sequence[GateSample], chosen: GatePoint) -> str:
    clues = [s for s in samples if s.meant]
    others = [s for s in samples if not s.meant]

    def through(s: GateSample) -> bool:
        return s.clue and s.share is not None and s.gap is not None and s.share >= chosen.floor and s.gap <= chosen.gap

    unwritten = [s for s in clues if s.share is not None]
    return (
        f"clue gate (a number the transcript does not write): share from {chosen.floor:.4f}, within {chosen.gap:.3f} "
        f"nats; {len(clues)} clues said, {len(unwritten)} with no number written, {sum(through(s) for s in unwritten)} "
        f"of them through ({sum(through(s) and s.right for s in unwritten)} with the number said); "
        f"{sum(through(s) for s in others)} of {len(others)} lines that meant no clue through"
    )


def _guess_moment(utterance: Utterance, asked: bool) -> Moment:
    cards = tuple(boards(utterance.lang)[utterance.board].cards)
    if asked:  # "CEREJA?": a question about one card
        return Moment(utterance.lang, Awaited.GUESS, visible=cards, asked=True, offers=cards[:1])
    return Moment(utterance.lang, Awaited.GUESS, visible=cards)


def _lenient(model: Calibration) -> Calibration:
    """The shipped calibration with every scored command taken: what each would be taken at, is measured."""
    return replace(
        model,
        pass_share=0.0,
        answer_share=0.0,
        read_only_share=0.0,
        pass_alone_share=0.0,
        pass_ask_share=0.0,
        answer_by_lang={},
        yes_by_lang={},
    )


def _scored_share(heard: Any, moment: Moment, word: str) -> float:
    """`word`'s share among the phrases that may be meant now (the cards; after a question, "yes" and "no"
    too), when the scores put it first (else 0): as the decision weighs it (`lead_share`)."""
    if heard.closed is None:
        return 0.0
    vocab = vocabulary(moment.lang)
    yes_no = {vocab.scored_words[c] for c in (Command.YES, Command.NO)}
    # "yes" leads every card; "pass" every card and every read-only command scored beside them
    rivals = {*moment.scored_cards, *yes_no} if moment.answering else command_rivals(moment)
    return lead_share(heard.closed, word, rivals, moment.lang)


def collect_commands(
    recognizer: Any,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    cache: Path,
    measured: Measured,
    command: Command,
) -> list[MoveSample]:
    """`command` ("pass" and the read-only commands while guessing; "yes" and "no" after "CEREJA?") and
    what must not be taken for it (the other commands, talk, cards said alone) heard as the host hears them:
    the share the scores give the command when they put it first, and whether it was meant."""
    answering = command in (Command.YES, Command.NO)

    def measure(utterance: Utterance, condition: Condition) -> MoveSample | None:
        moment = _guess_moment(utterance, answering)
        heard = recognizer.recognize(audio_of(utterance, condition, cache), moment)
        return command_sample(heard, moment, command, utterance.command, utterance.uid, condition.name)

    wanted = ("yes/no",) if answering else ("command",)
    langs = list(dict.fromkeys(u.lang for u in utterances))
    paced = answer_corpus if answering else command_corpus  # the same moves at other speeds: more garbled ones
    more = [u for lang in langs for u in paced(lang, voices_of(lang, "tune"))]
    todo = []
    for u in (*utterances, *more):
        card_index = boards(u.lang)[u.board].cards.index(u.card) if u.card is not None else 0
        kept = u.kind in (*wanted, "talk") or (u.kind == "card" and card_index % (25 // CARDS_PER_BOARD) == 0)
        todo += [(u, c) for c in conditions if kept]
    kind = "guess-command" if command is Command.PASS else f"{command.value}-command"
    return list(measured(kind, todo, measure, lambda row: MoveSample(**row), cache))


def command_sample(
    heard: Any, moment: Moment, command: Command, meant: Command | None, uid: str, condition: str
) -> MoveSample:
    """One line heard at `moment` as the commands' points weigh it: whether `command` (or one of its family,
    `_family`) is what the decision takes with every point let through, read plainly or from the scores
    alone, at what share, and whether it is the command `meant` (None: the line meant none of them). One
    rule for the isolated lines (`collect_commands`) and the lines of a table (`bench.calibrate_answers`)."""
    reading = Reading(heard.text, moment, heard.confidence)
    understood = decide(heard, reading, _lenient(calibration()))
    lang = moment.lang
    said = meant.value if meant is not None else None
    if not isinstance(understood, HeardCommand) or understood.command not in _family(command):
        return MoveSample(uid, condition, 0.0, False, False, meant=said, lang=lang.value)
    taken = understood.command
    # read plainly, or (an answer) the words agree with the scores: no point needed for either
    if moment.answering:
        plain = answer_in_words(reading, taken)
    else:
        plain = isinstance(reading.said, HeardCommand) and reading.said.command is taken
    acted = understood.action is Action.ACCEPT
    if taken in READ_ONLY:  # the share the decision weighs it by (`decision.cards`: its phrases summed), if it acts
        share = understood.confidence if acted else 0.0
    elif taken is Command.PASS and not plain:  # asked back ("pass?") or, short enough, acted on
        share = understood.confidence
    else:
        share = _scored_share(heard, moment, vocabulary(lang).scored_words[taken])
    return MoveSample(uid, condition, share, plain, meant is taken, taken.value, acted, said, lang.value)


def _family(command: Command) -> tuple[Command, ...]:
    """The commands one collection weighs: "yes" and "no" together; "pass" with the read-only commands
    scored beside the cards (one hearing of each utterance for both points)."""
    if command in (Command.YES, Command.NO):
        return (Command.YES, Command.NO)
    return (command, *sorted(READ_ONLY, key=lambda c: c.value)) if command is Command.PASS else (command,)


@dataclass(frozen=True)
class EndingSample:
    uid: str
    condition: str
    gap: float | None  # the best ending phrase's nats below the free transcript; None: nothing scored
    meant: str | None  # the command said ("new_game", "quit"), None for talk, cards and other commands
    taken: str | None  # what the gap alone would take: the best phrase's command


def collect_endings(
    recognizer: Any, utterances: Sequence[Utterance], conditions: Sequence[Condition], cache: Path, measured: Measured
) -> list[EndingSample]:
    """Once a game is over: "new game" and "quit" as the tuning voices say them, and what must not be taken
    for either (table talk, cards, the other commands), scored against every way of saying them."""
    lenient = replace(calibration(), ending_gap=math.inf)

    def measure(utterance: Utterance, condition: Condition) -> EndingSample | None:
        cards = tuple(boards(utterance.lang)["test"].cards)
        moment = replace(moment_for(utterance.lang, cards, 5, Awaited.OVER), visible=())
        heard = recognizer.recognize(audio_of(utterance, condition, cache), moment)
        reading = Reading(heard.text, moment, heard.confidence)
        said = reading.said
        meant = utterance.command.value if utterance.command is not None else None
        if isinstance(said, HeardCommand) and said.action is Action.ACCEPT:
            return EndingSample(utterance.uid, condition.name, None, meant, None)  # read plainly: no gap needed
        taken = ending_verdict(heard, reading, lenient)
        command = taken.command.value if isinstance(taken, HeardCommand) else None
        return EndingSample(utterance.uid, condition.name, ending_gap(heard), meant, command)

    langs = list(dict.fromkeys(u.lang for u in utterances))
    endings = [u for lang in langs for u in ending_corpus(lang, voices_of(lang, "tune"))]
    todo = [(u, c) for u in (*endings, *utterances) for c in conditions if u.kind in ("ending", "talk", "command")]
    return list(measured("ending", todo, measure, lambda row: EndingSample(**row), cache))


MIN_ENDINGS_TAKEN: Final = 10
"""A gap that takes fewer endings than this says nothing about its wrong ones."""


def gap_point(samples: Sequence[EndingSample], shipped: float | None) -> float | None:
    """The widest gap (nats a token) at which the endings it takes are wrong at most WRONG_RATE of the time;
    None when none is (endings are then taken from their words only); `shipped` when fewer than
    MIN_SAMPLES endings were said."""
    if sum(s.meant is not None for s in samples) < MIN_SAMPLES:
        return shipped
    gaps = sorted({s.gap for s in samples if s.gap is not None and s.taken is not None})
    best: float | None = None
    for gap in gaps:
        taken = [s for s in samples if s.gap is not None and s.taken is not None and s.gap <= gap]
        if len(taken) >= MIN_ENDINGS_TAKEN and sum(s.taken != s.meant for s in taken) <= WRONG_RATE * len(taken):
            best = gap
    return None if best is None else math.floor(best * 1000) / 1000


ASK_RATE: Final = 0.02
"""At most one line in fifty that is no pass (table talk, a card said alone, another command) is asked "pass?"
from the scores alone: the price of asking back the passes only the scores heard."""


def _pass_by_scores(samples: Sequence[MoveSample]) -> tuple[list[MoveSample], list[MoveSample]]:
    """The samples "pass" was heard in by the scores alone (scored first), and every sample that meant no pass."""
    alone = [s for s in samples if not s.plain and s.command == Command.PASS.value and s.share > 0]
    return alone, [s for s in samples if s.meant != Command.PASS.value]


def ask_point(samples: Sequence[MoveSample], shipped: float | None) -> float | None:
    """The lowest share from which "pass" heard only by the scores is asked back, so that the lines that meant
    no pass asked are at most ASK_RATE of them; `shipped` when fewer than MIN_SAMPLES passes were scored first."""
    alone, others = _pass_by_scores(samples)
    if sum(s.meant == Command.PASS.value for s in alone) < MIN_SAMPLES or not others:
        return shipped
    best: float | None = None
    for share in sorted({s.share for s in alone}, reverse=True):
        if sum(s.share >= share for s in alone if s.meant != Command.PASS.value) <= ASK_RATE * len(others):
            best = share
    return None if best is None else max(FLOOR, math.floor(best * 1e6) / 1e6)


def ask_summary(samples: Sequence[MoveSample], chosen: float | None) -> str:
    alone, others = _pass_by_scores(samples)
    if chosen is None:
        return f'"pass?" from the scores alone: no share keeps the other lines under {ASK_RATE:.0%}: never asked'
    asked = [s for s in alone if s.share >= chosen]
    meant = sum(s.meant == Command.PASS.value for s in asked)
    return (
        f'"pass?" from the scores alone, from {chosen:.4f}: {meant} passes asked back, {len(asked) - meant} of '
        f"{len(others)} other lines"
    )


ENDING_ASK_RATE: Final = 0.02
"""At most one line in fifty that is neither "new game" nor "quit" (talk after a game, another command)
is asked back as one once the game is over ("Sair do jogo?"): the price of answering the garbled endings."""
ENDING_VALUES: Final = frozenset(command.value for command in ENDINGS)


def ending_ask_point(samples: Sequence[EndingSample], shipped: float | None) -> float | None:
    """The widest gap (nats a token) within which the lines that are no ending fall at most ENDING_ASK_RATE of
    the time: a line the words do not read as an ending but the scores put within it is asked back as one;
    None when no gap keeps the others under it; `shipped` when fewer than MIN_SAMPLES endings were said."""
    others = [s for s in samples if s.meant not in ENDING_VALUES]
    if sum(s.meant in ENDING_VALUES for s in samples) < MIN_SAMPLES or not others:
        return shipped
    best: float | None = None
    for gap in sorted({s.gap for s in samples if s.gap is not None}):
        if sum(s.gap is not None and s.gap <= gap for s in others) <= ENDING_ASK_RATE * len(others):
            best = gap
    return None if best is None else math.floor(best * 1000) / 1000


def ending_ask_summary(samples: Sequence[EndingSample], chosen: float | None) -> str:
    garbled = [s for s in samples if s.meant in ENDING_VALUES and s.gap is not None]
    others = [s for s in samples if s.meant not in ENDING_VALUES]
    if chosen is None:
        head = "an ending asked back once the game is over"
        return f"{head}: no gap keeps the other lines under {ENDING_ASK_RATE:.0%}: silence"
    within = [s for s in garbled if s.gap is not None and s.gap <= chosen]
    wrongly = [s for s in others if s.gap is not None and s.gap <= chosen]
    return (
        f"an ending asked back once the game is over, within {chosen:.3f} nats a token: {len(within)} of "
        f"{len(garbled)} endings not read from their words, {len(wrongly)} of {len(others)} other lines"
    )


def ending_summary(samples: Sequence[EndingSample], chosen: float | None) -> str:
    meant = [s for s in samples if s.meant is not None]
    plain = [s for s in samples if s.gap is None]
    head = f"new game or quit once the game is over: {len(samples)} utterances, {len(plain)} read from their words"
    if chosen is None:
        return f"{head}; no gap from the transcript keeps the wrong ones under {WRONG_RATE:.1%}: words only"
    taken = [s for s in samples if s.gap is not None and s.taken is not None and s.gap <= chosen]
    return (
        f"{head}; within {chosen:.3f} nats a token of the transcript, {sum(s.taken == s.meant for s in taken)} "
        f"of {len(meant)} meant taken, {sum(s.taken != s.meant for s in taken)} taken wrongly"
    )


@dataclass(frozen=True)
class AnswerPoints:
    share: float  # "yes" or "no" from the scores alone, every language pooled
    by_lang: dict[str, float]  # ...a language's own "no" (on the false noes, at the read-only rate)
    yes_by_lang: dict[str, float]  # ...and its "yes" (on the false yeses, at the moves' rate)
    summaries: tuple[str, ...]


def answer_fit(samples: Sequence[MoveSample], shipped: float) -> AnswerPoints:
    """The answers' points from the lines heard while a question waited (said alone and at a table's games):
    pooled, and each language's for a "no" and for a "yes" (`answer_points`), with what each takes."""
    scored = [s for s in samples if not s.plain]  # a plain "yes" needs no scores
    share = point(scored, shipped)
    by_words = answer_points(scored, share)
    summaries = (
        summary("yes or no from the scores alone", scored, share),
        *(
            summary(
                f"yes or no from the scores alone, {chosen.words} ({', '.join(chosen.langs)})",
                [s for s in scored if s.lang in chosen.langs],
                chosen.share,
            )
            for chosen in by_words
        ),
        *(
            summary(
                f"yes from the scores alone, {chosen.words} ({', '.join(chosen.langs)}; only false yeses count)",
                [s for s in scored if s.lang in chosen.langs and s.command == Command.YES.value],
                chosen.yes,
            )
            for chosen in by_words
        ),
        *(
            summary(
                f"no from the scores alone, {chosen.words} ({', '.join(chosen.langs)}; only false noes count, "
                f"at most {READ_ONLY_WRONG_RATE:.0%})",
                [s for s in scored if s.lang in chosen.langs and s.command == Command.NO.value],
                chosen.no,
            )
            for chosen in by_words
        ),
    )
    return AnswerPoints(
        share,
        {lang: chosen.no for chosen in by_words for lang in chosen.langs},
        {lang: chosen.yes for chosen in by_words for lang in chosen.langs},
        summaries,
    )


@dataclass(frozen=True)
class MovePoints:
    number_sure: float
    clue_gate: GatePoint
    pass_share: float
    answer_share: float
    answer_by_lang: dict[str, float]
    yes_by_lang: dict[str, float]
    ending_gap: float | None
    ending_ask: float | None
    read_only_share: float | None
    pass_alone_share: float | None
    pass_ask_share: float | None
    summaries: tuple[str, ...]


def move_points(
    recognizer: Any,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    cache: Path,
    measured: Measured,
    room_answers: Sequence[MoveSample] = (),
) -> MovePoints:
    """The moves' operating points, with what each takes at once on the tuning voices (`room_answers`: the
    lines heard while a question waited at their games, `bench.calibrate_answers`, weighed with the answers)."""
    clues = collect_clues(recognizer, utterances, conditions, cache, measured)
    passes = collect_commands(recognizer, utterances, conditions, cache, measured, Command.PASS)
    answers = collect_commands(recognizer, utterances, conditions, cache, measured, Command.YES)
    shipped = calibration()
    number_sure = point(clues, shipped.number_sure)
    gated = collect_clue_gate(recognizer, utterances, conditions, cache, measured)
    gate = gate_point(gated, GatePoint(shipped.clue_floor, shipped.clue_gap), number_sure)
    # "pass" acts at once when the transcript read it too and the scores agree from this share
    pass_share = point([s for s in passes if s.plain and s.command == Command.PASS.value], shipped.pass_share)
    read_only = [s for s in passes if not s.plain and s.command in {c.value for c in READ_ONLY}]
    read_only_share = point(read_only, shipped.read_only_share, READ_ONLY_WRONG_RATE)
    alone = [s for s in passes if not s.plain and s.command == Command.PASS.value and s.acted]
    pass_alone_share = point(alone, shipped.pass_alone_share)
    pass_ask_share = ask_point(passes, shipped.pass_ask_share)
    answered = answer_fit([*answers, *room_answers], shipped.answer_share)
    endings = collect_endings(recognizer, utterances, conditions, cache, measured)
    gap = gap_point(endings, shipped.ending_gap)
    asked = ending_ask_point(endings, shipped.ending_ask)
    return MovePoints(
        number_sure,
        gate,
        pass_share,
        answered.share,
        answered.by_lang,
        answered.yes_by_lang,
        gap,
        asked,
        read_only_share,
        pass_alone_share,
        pass_ask_share,
        (
            summary("clue numbers", clues, number_sure),
            gate_summary(gated, gate),
            summary(
                "pass heard unsure, the scores agreeing",
                [s for s in passes if s.plain and s.command == Command.PASS.value],
                pass_share,
            ),
            summary("read-only commands from the scores alone", read_only, read_only_share),
            summary("pass from the scores alone", alone, pass_alone_share),
            ask_summary(passes, pass_ask_share),
            *answered.summaries,
            ending_summary(endings, gap),
            ending_ask_summary(endings, asked),
        ),
    )
