"""Recognition: what the host does with each utterance of the corpus's HELD-OUT voices, heard by Whisper.

The host path is the host's own (`voicehost.referee.take_up`, what `Host._hear` calls): the recognizer
hears the clip in the phase's moment and returns its evidence (`Heard`: transcript and card scores);
the form of what was said (`understanding.talk.form_of`), the one decision step
(`voicehost.decision.decide`, calibrated on the TUNING voices only) and the attention step
(`referee.attention.attend`) then say whether the host acts at once, asks back, or does nothing. Two
baselines show what that buys: Whisper's plain transcript matched exactly against the cards, commands
and "word number"; and the same with the board's cards given to Whisper as its prompt. They never ask
back. vosk is measured on Korean (bench/korean.py).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, Final

from bench import misses
from bench.corpus import Condition, Utterance, audio_of, boards
from bench.hearings import Hearings
from bench.korean import KOREAN_FILLERS, KOREAN_NOUNS, KoreanWord, korean_audio, korean_moment
from bench.places import PLACE_KINDS
from bench.report import percent, table
from engine.lang import Lang
from voicehost.audio.samples import Audio
from voicehost.decision import decide
from voicehost.ears.heard import Heard, Recognizer
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import take_up
from voicehost.understanding import (
    Action,
    HeardClue,
    HeardCommand,
    HeardGuess,
    NotUnderstood,
    Phase,
    Understanding,
    listening_phrases,
    normalize,
    understand,
)
from voicehost.understanding.moment import Awaited, ListenMode, Moment
from voicehost.understanding.positions import Grid
from voicehost.understanding.reading import Reading
from voicehost.understanding.talk import spoken_host_name

HOST: Final = "whisper-base, host"
PLAIN: Final = "plain transcript + exact match"
PROMPTED: Final = "board as prompt + exact match"
VOSK: Final = "vosk-ko, grammar"
GUESS_KINDS: Final = ("card", "lead-in")
MOVE_KINDS: Final = ("card", "lead-in", "clue", "command", "yes/no")
WRONG_REVEAL_GOAL: Final = 0.5
"""Wrong reveals, % of the guesses said (the host path, held-out voices, every condition): the
calibration's operating point allows one in 200 on the tuning voices."""
TALK_ACTED_GOAL: Final = 0
MISTAKES_SHOWN: Final = 12


class Outcome(Enum):
    """What happened to one utterance that meant a move."""

    RIGHT = "right at once"  # the move meant, acted on at once
    ASKED = "asked back"  # a question back ("WALRUS?"): nothing happens yet
    MISSED = "missed"  # nothing done: asked again, ignored, or a hint how to say it
    WRONG_REVEAL = "wrong reveal"  # a card acted on at once that was not the one meant
    WRONG_OTHER = "wrong other"  # another move acted on at once that nobody made (a command, a clue)


class TalkOutcome(Enum):
    """What happened to a line of table talk: silence is right."""

    SILENT = "silent"
    REPROMPTED = "asked again"  # "Sorry, I didn't get that": the host spoke, nothing happened
    ASKED = "asked back"
    ACTED = "acted on"  # a move made that nobody made: the critical count


@dataclass(frozen=True)
class Situation:
    """What the host waits for when the utterance is said (`moment`, what the ears listen for), the cards
    it may name, and whether it has just asked a yes/no question."""

    moment: Moment
    cards: tuple[str, ...]
    guessing: bool
    answering: bool
    board: tuple[str, ...]  # every card on the board: all visible


def situation(utterance: Utterance) -> Situation:
    """Guesses, commands and talk while operatives guess (after a clue); clues while one is awaited;
    yes/no after the host asked about the board's first card ("WALRUS?"), as `Host.moment` builds it."""
    cards = tuple(boards(utterance.lang)[utterance.board].cards)
    if utterance.kind == "yes/no":
        offered = cards[:1]
        moment = Moment(utterance.lang, Awaited.GUESS, visible=cards, asked=True, offers=offered)
        return Situation(moment, offered, True, True, cards)
    guessing = utterance.phase == "guess"
    moment = Moment(utterance.lang, Awaited.GUESS if guessing else Awaited.CLUE, visible=cards)
    return Situation(moment, cards, guessing, False, cards)


def host_hears(
    heard: Heard,
    lang: Lang,
    cards: Sequence[str],
    *,
    guessing: bool,
    answering: bool,
    listening: ListenMode,
    grid: Grid | None = None,
    visible: Sequence[str] | None = None,
) -> tuple[Attention, Understanding]:
    """`Host._hear` without the game: the host's own step (`take_up`), its verdict and what it understood
    (hedged when asked back). `cards`: what the ears listened for (the cards asked about, when
    `answering` a yes/no question); `visible`: the board's cards (`cards` when not given); `grid`: the
    board's places, so that a card named by its place is read as the host reads it."""
    moment = Moment(
        lang,
        Awaited.GUESS if guessing else Awaited.CLUE,
        visible=tuple(cards if visible is None else visible),
        grid=grid,
        asked=answering,
        offers=tuple(cards) if answering else None,
        listening=listening,
    )
    taken = take_up(heard, moment)
    return taken.verdict, taken.understood


def meant(utterance: Utterance | KoreanWord, understood: Understanding, lang: Lang) -> bool:
    """Whether the move understood is the one said: the card, the clue's word and number, the command."""
    if isinstance(understood, HeardGuess):
        return utterance.card is not None and understood.card == utterance.card
    if isinstance(understood, HeardCommand):
        return isinstance(utterance, Utterance) and understood.command is utterance.command
    if isinstance(understood, HeardClue) and isinstance(utterance, Utterance) and utterance.clue is not None:
        word, number = utterance.clue
        return normalize(understood.clue.word, lang) == normalize(word, lang) and understood.clue.number == number
    return False


def outcome(utterance: Utterance | KoreanWord, attention: Attention, understood: Understanding, lang: Lang) -> Outcome:
    """What the host's verdict means for the player who made the move."""
    if attention in (Attention.IGNORE, Attention.HINT) or understood.action is Action.REPROMPT:
        return Outcome.MISSED
    if understood.action is Action.CONFIRM:
        return Outcome.ASKED
    if meant(utterance, understood, lang):
        return Outcome.RIGHT
    return Outcome.WRONG_REVEAL if isinstance(understood, HeardGuess) else Outcome.WRONG_OTHER


def talk_outcome(attention: Attention, understood: Understanding) -> TalkOutcome:
    if attention in (Attention.IGNORE, Attention.HINT):
        return TalkOutcome.SILENT  # a hint is said once a game at most: counted as silence
    if understood.action is Action.ACCEPT:
        return TalkOutcome.ACTED
    return TalkOutcome.ASKED if understood.action is Action.CONFIRM else TalkOutcome.REPROMPTED


# ---- the baselines ----------------------------------------------------------------------------


@cache
def _exact_commands(lang: Lang, guessing: bool) -> dict[str, Any]:
    """Normalized command phrase -> command, as the phase reads it."""
    phase = Phase.GUESS if guessing else Phase.CLUE
    found: dict[str, Any] = {}
    for phrase in listening_phrases(lang):
        understood = understand(phrase, phase=phase, cards=(), lang=lang)
        if isinstance(understood, HeardCommand) and understood.action is Action.ACCEPT:
            found.setdefault(normalize(phrase, lang), understood.command)
    return found


def exact_move(text: str, lang: Lang, cards: Sequence[str], *, guessing: bool) -> Understanding:
    """A plain speech-to-text pipeline: a card only when the normalized transcript is a card's name, a
    command only when it is a command phrase, a clue only as exactly "word number"; else nothing."""
    heard = normalize(text, lang)
    command = _exact_commands(lang, guessing).get(heard)
    if command is not None:
        return HeardCommand(text, Action.ACCEPT, 1.0, command)
    if not guessing and len(heard.split()) == 2:
        understood = understand(text, phase=Phase.CLUE, cards=(), lang=lang)
        if isinstance(understood, HeardClue):
            return replace(understood, action=Action.ACCEPT)
    for card in cards:
        if normalize(card, lang) == heard:
            return HeardGuess(text, Action.ACCEPT, 1.0, card, ())
    return NotUnderstood(text, Action.REPROMPT, 0.0)


def prompted_transcript(recognizer: Any, audio: Audio, cards: Sequence[str], lang: Lang) -> str:
    """Whisper's free transcript with the board's cards as its prompt (the previous-text slot), greedy:
    the usual way to bias Whisper toward a vocabulary (`WhisperRecognizer.transcribe_after`)."""
    return str(recognizer.transcribe_after(audio, lang, ", ".join(card.lower() for card in cards) + "."))


# ---- running ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hearing:
    """One clip heard: the utterance, its condition, what Whisper heard, and the prompted transcript."""

    utterance: Utterance
    condition: str
    heard: Heard
    prompted: str | None = None


def addressed(utterance: Utterance) -> Utterance:
    """The card said to the host by name ("Host, walrus"): a move in the addressed way of playing."""
    text = f"{spoken_host_name(utterance.lang)}, {utterance.text}"
    return replace(utterance, kind="addressed", text=text)


def hear_all(
    recognizer: Recognizer,
    utterances: Sequence[Utterance],
    conditions: Sequence[Condition],
    cache_dir: Path,
    *,
    prompted: bool,
) -> list[Hearing]:
    """Every utterance in every condition through Whisper in the host's moment (and the prompted
    baseline for guesses): the evidence every table below is read from. What the host path heard is
    kept on disk (`bench.hearings`): a rerun with the same ears decides again without hearing again."""
    store = Hearings(cache_dir)
    hearings: list[Hearing] = []
    for condition in conditions:
        started = time.perf_counter()
        for utterance in utterances:
            where = situation(utterance)
            heard = store.heard(recognizer, utterance, condition, where.moment)
            text = None
            if prompted and utterance.kind in GUESS_KINDS:
                audio = audio_of(utterance, condition, cache_dir)
                text = prompted_transcript(recognizer, audio, where.cards, utterance.lang)
            hearings.append(Hearing(utterance, condition.name, heard, text))
        progress(f"whisper {condition.name}: {len(utterances)} utterances in {time.perf_counter() - started:.0f} s")
    return hearings


def progress(line: str) -> None:
    print(f"[bench] {line}", file=sys.stderr, flush=True)


# ---- tallies ----------------------------------------------------------------------------------


@dataclass
class Tally:
    counts: dict[Any, int] = field(default_factory=dict)

    def add(self, value: Any) -> None:
        self.counts[value] = self.counts.get(value, 0) + 1

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    def share(self, *values: Any) -> int | None:
        return percent(sum(self.counts.get(value, 0) for value in values), self.n)

    def count(self, *values: Any) -> int:
        return sum(self.counts.get(value, 0) for value in values)


@dataclass
class Results:
    """Outcomes by (engine, language, condition, kind), talk by (listening, language, condition), and
    the wrong moves to list."""

    moves: dict[tuple[str, str, str, str], Tally] = field(default_factory=dict)
    talk: dict[tuple[str, str, str], Tally] = field(default_factory=dict)
    ways: dict[tuple[str, str], Tally] = field(default_factory=dict)  # (listening, how said) -> Outcome
    mistakes: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    voices: dict[tuple[str, str, str, str], misses.VoiceTally] = field(default_factory=dict)  # bench.misses

    def tally(self, engine: str, lang: str, condition: str, kind: str) -> Tally:
        return self.moves.setdefault((engine, lang, condition, kind), Tally())

    def total(self, engine: str, kinds: Iterable[str], condition: str | None = None) -> Tally:
        summed = Tally()
        wanted = set(kinds)
        for (name, _, heard_in, kind), tally in self.moves.items():
            if name == engine and kind in wanted and condition in (None, heard_in):
                for value, count in tally.counts.items():
                    summed.counts[value] = summed.counts.get(value, 0) + count
        return summed

    def wrong(self, engine: str, hearing: str, said: Utterance | KoreanWord, understood: Understanding) -> None:
        voice = said.voice.id if isinstance(said, Utterance) else "espeak:ko"
        what = type(understood).__name__
        move = (
            getattr(understood, "card", None) or getattr(understood, "command", None) or getattr(understood, "clue", "")
        )
        self.mistakes.setdefault(engine, []).append(f"{hearing}, {voice}: said {said.text!r} -> {what} {move}")


def score_whisper(hearings: Sequence[Hearing], results: Results) -> None:
    """The host path and the baselines on every move, and table talk in both ways of playing."""
    for hearing in hearings:
        said, heard = hearing.utterance, hearing.heard
        lang, where = said.lang, situation(said)
        where_heard = f"{lang.value}, {hearing.condition}"
        if said.kind == "talk":
            for listening in ListenMode:
                attention, understood = host_hears(
                    heard, lang, where.cards, guessing=True, answering=False, listening=listening
                )
                found = talk_outcome(attention, understood)
                results.talk.setdefault((listening.value, lang.value, hearing.condition), Tally()).add(found)
                if found is TalkOutcome.ACTED:
                    results.wrong(f"talk, {listening.value}", where_heard, said, understood)
            plain = exact_move(heard.text, lang, where.cards, guessing=True)
            results.talk.setdefault((PLAIN, lang.value, hearing.condition), Tally()).add(
                TalkOutcome.ACTED if plain.action is Action.ACCEPT else TalkOutcome.SILENT
            )
            continue
        if said.kind in ("card", "addressed"):
            for listening in ListenMode:
                attention, understood = host_hears(
                    heard, lang, where.cards, guessing=True, answering=False, listening=listening
                )
                how = "by name" if said.kind == "addressed" else "bare"
                results.ways.setdefault((listening.value, how), Tally()).add(outcome(said, attention, understood, lang))
            if said.kind == "addressed":
                continue
        board = boards(lang)[said.board]
        places = Grid(tuple(board.cards), board.grid.columns) if where.guessing and not where.answering else None
        attention, understood = host_hears(
            heard,
            lang,
            where.cards,
            guessing=where.guessing,
            answering=where.answering,
            listening=ListenMode.OPEN,
            grid=places,
            visible=where.board,
        )
        moved = outcome(said, attention, understood, lang)
        results.tally(HOST, lang.value, hearing.condition, said.kind).add(moved)
        if said.card is not None and places is not None:
            on_board = Moment(lang, Awaited.GUESS, visible=where.board, grid=places)
            decided = decide(heard, Reading(heard.text, on_board, heard.confidence))
            acted = decided.action is Action.ACCEPT and isinstance(decided, HeardGuess) and decided.card == said.card
            _record_voice(results, hearing, moved, places, acted)
        if moved in (Outcome.WRONG_REVEAL, Outcome.WRONG_OTHER):
            results.wrong(HOST, where_heard, said, understood)
        plain = exact_move(heard.text, lang, where.cards, guessing=where.guessing)
        results.tally(PLAIN, lang.value, hearing.condition, said.kind).add(outcome(said, Attention.TAKE, plain, lang))
        if hearing.prompted is not None:
            prompted = exact_move(hearing.prompted, lang, where.cards, guessing=True)
            results.tally(PROMPTED, lang.value, hearing.condition, said.kind).add(
                outcome(said, Attention.TAKE, prompted, lang)
            )


def _record_voice(results: Results, hearing: Hearing, moved: Outcome, grid: Grid, decided: bool) -> None:
    """The per-voice tally of a guess or a place: the scorer's first card beside what the host did."""
    said, heard = hearing.utterance, hearing.heard
    assert said.card is not None
    fused = None
    if said.kind in PLACE_KINDS:
        first = misses.place_scored_first(heard, said.card, grid, said.lang)
        group, by_example, gated = misses.PLACES, None, heard.places is not None
    else:
        first = misses.scored_first(heard, said.card, grid.cards, said.lang)
        group, by_example, gated = misses.NAMES, misses.example_first(heard, said.card, grid.cards), False
        if by_example is not None:
            fused = misses.scored_first(heard, said.card, grid.cards, said.lang, fused=True)
    misses.record(
        results.voices,
        lang=said.lang,
        voice=said.voice.id,
        condition=hearing.condition,
        group=group,
        outcome=moved.value,
        first=first,
        by_example=by_example,
        fused=fused,
        gated=gated,
        decided=decided,
    )


def run_vosk(
    recognizer: Recognizer,
    words: Sequence[KoreanWord],
    conditions: Sequence[Condition],
    cache_dir: Path,
    results: Results,
) -> None:
    """The Korean nouns and words outside the grammar through vosk and the host's decision (as text:
    vosk has no card scores). Babble has no Korean: those conditions are left out."""
    for condition in conditions:
        if condition.kind == "babble":
            continue
        for word in words:
            heard = recognizer.recognize(korean_audio(word, condition, cache_dir), korean_moment())
            attention, understood = host_hears(
                heard, Lang.EN, KOREAN_NOUNS, guessing=True, answering=False, listening=ListenMode.OPEN
            )
            if word.kind == "card":
                found = outcome(word, attention, understood, Lang.EN)
                results.tally(VOSK, "ko", condition.name, "card").add(found)
                if found in (Outcome.WRONG_REVEAL, Outcome.WRONG_OTHER):
                    results.wrong(VOSK, f"ko, {condition.name}", word, understood)
            else:
                results.talk.setdefault((VOSK, "ko", condition.name), Tally()).add(talk_outcome(attention, understood))
        progress(f"vosk ko {condition.name}: {len(words)} words")
    results.notes.append(
        f"vosk-ko: espeak-ng's Korean saying the grammar's {len(KOREAN_NOUNS)} nouns (as guesses) and words "
        f"outside it (as talk); the grammar also holds {len(KOREAN_FILLERS)} other nouns as fillers "
        "(bench/korean.py). Babble conditions have no Korean and are left out."
    )


# ---- tables -----------------------------------------------------------------------------------

MOVE_HEADERS: Final = [
    "engine",
    "lang",
    "condition",
    "guesses",
    "right at once %",
    "asked back %",
    "missed %",
    "WRONG reveals %",
    "wrong reveals",
    "clue right %",
    "command right %",
]


def _row(results: Results, engine: str, lang: str, condition: str) -> list[object]:
    def pooled(kinds: Iterable[str]) -> Tally:
        summed = Tally()
        for kind in kinds:
            for value, count in results.moves.get((engine, lang, condition, kind), Tally()).counts.items():
                summed.counts[value] = summed.counts.get(value, 0) + count
        return summed

    return _cells(engine, lang, condition, pooled(GUESS_KINDS), pooled(("clue",)), pooled(("command", "yes/no")))


def _cells(engine: str, lang: str, condition: str, guesses: Tally, clues: Tally, commands: Tally) -> list[object]:
    wrong = guesses.count(Outcome.WRONG_REVEAL)
    return [
        engine,
        lang,
        condition,
        guesses.n,
        guesses.share(Outcome.RIGHT),
        guesses.share(Outcome.ASKED),
        guesses.share(Outcome.MISSED),
        round(100 * wrong / guesses.n, 2) if guesses.n else None,
        wrong,
        clues.share(Outcome.RIGHT),
        commands.share(Outcome.RIGHT),
    ]


def tables(results: Results) -> str:
    keys = sorted({key[:3] for key in results.moves}, key=lambda k: (_engine_order(k[0]), k[1], k[2]))
    rows = [_row(results, *key) for key in keys]
    conditions = sorted({key[2] for key in results.moves if key[0] == HOST})
    for engine in (HOST, PLAIN, PROMPTED):
        for condition in (*conditions, None):
            guesses = results.total(engine, GUESS_KINDS, condition)
            if guesses.n:
                rows.append(
                    _cells(
                        f"**{engine}**",
                        "all",
                        condition or "all",
                        guesses,
                        results.total(engine, ("clue",), condition),
                        results.total(engine, ("command", "yes/no"), condition),
                    )
                )
    parts = [
        "## 1. Recognition (Whisper base, held-out voices)",
        "",
        "Every utterance of the corpus's held-out voices (never used to calibrate) in each condition, heard as "
        "the host hears it and decided as the host decides (`Heard` evidence, `decide`, `attend`; open way of "
        "playing). *guesses*: cards said alone or after a lead-in; *right at once*: the card meant, revealed "
        "at once; *asked back*: a question back (nothing happens until answered); *missed*: nothing done (asked "
        "again); *WRONG reveals*: a card revealed at once that was not the one said: the critical number (goal "
        f"≤ {WRONG_REVEAL_GOAL:g} %, host path, every condition). *clue right*: word and number accepted at once; "
        "*command right*: commands and yes/no (after a question) accepted at once. Baselines: Whisper's plain "
        "transcript matched exactly, and the same with the board as Whisper's prompt (guesses only); they never "
        "ask back. Bold rows pool every language.",
        "",
        table(MOVE_HEADERS, rows),
    ]
    parts += ["", talk_table(results)]
    if any(key[3] in PLACE_KINDS for key in results.moves):
        parts += ["", places_table(results)]
    for group in (misses.NAMES, misses.PLACES):
        if any(key[3] == group for key in results.voices):
            parts += ["", misses.voices_table(results.voices, group)]
    for engine, lines in results.mistakes.items():
        shown = lines[:MISTAKES_SHOWN]
        parts += ["", f"Wrong moves, {engine} ({len(lines)}; the first {len(shown)}):", ""]
        parts += [f"- {line}" for line in shown]
    if results.notes:
        parts += ["", *[f"- {note}" for note in results.notes]]
    return "\n".join(parts)


def places_table(results: Results) -> str:
    """Places beside names (bench/places.py): right intent (the card meant, at once or asked back) and at
    once, per language, host path, every condition pooled."""
    rows: list[list[object]] = []
    langs = sorted({key[1] for key in results.moves if key[0] == HOST and key[3] in PLACE_KINDS})
    for lang in (*langs, None):
        row: list[object] = [lang or "**all**"]
        for kinds in (("card",), ("lead-in",), ("place",), ("place-lead-in",)):
            summed = Tally()
            for (engine, heard_lang, _, kind), tally in results.moves.items():
                if engine == HOST and kind in kinds and lang in (None, heard_lang):
                    for value, count in tally.counts.items():
                        summed.counts[value] = summed.counts.get(value, 0) + count
            right, now = summed.share(Outcome.RIGHT, Outcome.ASKED), summed.share(Outcome.RIGHT)
            row.append(f"{right} / {now} ({summed.n})" if summed.n else "-")
        rows.append(row)
    return "\n".join(
        [
            "### Places beside names (Whisper base, host path, held-out voices)",
            "",
            'A card named by its place on the test board (`bench/places.py`: "row two column three", the column\'s '
            'letter and the row\'s number said as words, and the label as written, "C2"; and the label after a '
            'lead-in, "I think it\'s C2"), beside the same voices naming cards. Cells: right intent % (the card '
            "meant, at once or asked back) / at once % (utterances).",
            "",
            table(["language", "cards alone", "cards after a lead-in", "places alone", "places after a lead-in"], rows),
        ]
    )


def _engine_order(engine: str) -> int:
    order = (HOST, PLAIN, PROMPTED, VOSK)
    return order.index(engine) if engine in order else len(order)


def talk_table(results: Results) -> str:
    """Moves and table talk per way of playing: moves acted on, talk left alone."""
    rows: list[list[object]] = []
    for listening in ListenMode:
        talk = Tally()
        for (name, _, _), tally in results.talk.items():
            if name == listening.value:
                for value, count in tally.counts.items():
                    talk.counts[value] = talk.counts.get(value, 0) + count
        for how in ("bare", "by name"):
            moves = results.ways.get((listening.value, how), Tally())
            rows.append(
                [
                    listening.value,
                    f"cards said {how}",
                    moves.n,
                    moves.share(Outcome.RIGHT),
                    moves.share(Outcome.ASKED),
                    moves.share(Outcome.MISSED),
                    moves.count(Outcome.WRONG_REVEAL, Outcome.WRONG_OTHER),
                    talk.n if how == "bare" else None,
                    talk.count(TalkOutcome.ACTED) if how == "bare" else None,
                    talk.count(TalkOutcome.ASKED) if how == "bare" else None,
                    talk.count(TalkOutcome.REPROMPTED) if how == "bare" else None,
                ]
            )
    for engine in (PLAIN, VOSK):
        talk = Tally()
        for (name, _, _), tally in results.talk.items():
            if name == engine:
                for value, count in tally.counts.items():
                    talk.counts[value] = talk.counts.get(value, 0) + count
        if talk.n:
            rows.append([engine, "–", None, None, None, None, None, talk.n, talk.count(TalkOutcome.ACTED), None, None])
    headers = [
        "listening",
        "moves",
        "n",
        "acted at once %",
        "asked back %",
        "missed %",
        "wrong",
        "talk lines",
        "talk acted on",
        "talk asked back",
        "talk asked again",
    ]
    return "\n".join(
        [
            "### Table talk, per way of playing",
            "",
            "The host waits for guesses after a clue. *addressed*: a move counts only said to the host (its name "
            f'first: "{spoken_host_name(Lang.EN)}, walrus"); *open*: whenever it has a move\'s form. Moves: the '
            "held-out voices' cards said alone (*bare*) and after the host's name (*by name*), every condition. "
            "Talk: the corpus's lines of table talk (tests/data/table_talk), heard by Whisper; *acted on* must "
            f"stay {TALK_ACTED_GOAL} (a reveal, a pass, a clue nobody made); *asked again*: the host spoke "
            '("didn\'t get that") but did nothing. The plain baseline acts on talk whose transcript is a card; '
            "vosk-ko's row: its words outside the grammar.",
            "",
            table(headers, rows),
        ]
    )


def model_dir(model_id: str) -> Path | str:
    """The installed model's folder, or why it is not there."""
    from voicehost.speech_models import Manifest, ModelError, require

    try:
        return require(Manifest.load().get(model_id))
    except ModelError as exc:
        return str(exc)
