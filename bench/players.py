"""A simulated table: players who speak with the bench's synthetic voices and listen to the host.

The players' lines go through the real voice loop (Silero VAD, the real recognizer, the host), so a game
played here is a game played by voice, only faster than real time (`bench.satellite` plays the same
table through a Wyoming satellite, in real time). Every player knows only what a person at the table
knows: the board as the display shows it, the key where their role sees it, and what the host SAYS (the
text of each announcement, read against the prompt templates by `bench.announcements`), never what the
host thinks. So they:

- answer the host's questions truthfully: "CEREJA?" yes when CEREJA was meant, "CEREJA ou CEBOLA?" the
  card's name, "Clue: fruit, 2? Yes or no." yes when that is the clue given; the opposing spymaster
  answers "is the clue X allowed?", the Duet player named answers "A or B?";
- say a move again when it is met with silence, or with anything that neither does it nor asks about it
  ("Sorry?", a re-prompt, "say it again"), up to MAX_TRIES times (a card said after a lead-in is then
  said plainly): then the move is lost and they try another card or another clue word;
- take back what nobody meant, as a table would: "undo" after a card revealed wrongly, "no, the clue is
  ..." after a clue heard wrongly.

The plan is fixed: each spymaster gives a clue for PER_CLUE of their cards, the operatives name them one
by one (one line in three after a lead-in, "I think it's the ...") and pass; after the planned turns the
next team names the assassin, and the table says goodbye (the host asks, they say yes). What happened is
read from the engine's events: a clue, a reveal or a pass that was not the move being made is a wrong
event. Everything is seeded: the same commit and the same voices play the same game.
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Final

import numpy as np

from bench.announcements import Announcements, Asked, Question, Reader, Said
from bench.corpus import CLUE_WORDS, HISS, LEAD_INS, NUMBERS, _article
from bench.lines import Line, line_audio, seed_of
from bench.noise import Condition, _unit, active_power, babble, reverb
from bench.reply_time import ReplyClock
from bench.voices import TestVoice, synthesize
from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.events import Event, EventType
from engine.game import Phase
from engine.lang import fold_text
from engine.legality import Verdict
from engine.pieces import Identity, Side, Team
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.recordings import CHUNK_SECONDS
from voicehost.ears.vad import WINDOW
from voicehost.referee.host import Host
from voicehost.understanding.moment import ListenMode
from voicehost.understanding.talk import spoken_host_name
from voicehost.understanding.vocabulary import resolved_table

YES: Final = {"en": "yes", "pt": "sim", "it": "sì"}
NO: Final = {"en": "no", "pt": "não", "it": "no"}
PASS: Final = {"en": "pass", "pt": "passo", "it": "passo"}
UNDO: Final = {"en": "undo that", "pt": "desfaz", "it": "annulla l'ultima"}
QUIT: Final = {"en": "goodbye", "pt": "sair do jogo", "it": "esci dal gioco"}
CORRECTION: Final = {"en": "no, the clue is {clue}", "pt": "não, a pista é {clue}", "it": "no, l'indizio è {clue}"}
SIDE_ANSWER: Final = {"en": "player {side}", "pt": "jogador {side}", "it": "giocatore {side}"}
"""The players' own words (not the host's), in each language family."""

PER_CLUE: Final = 2
PLANNED_TURNS: Final = 6
"""Turns played before the assassin: with two cards a clue, 12 planned guesses a game."""
MAX_TRIES: Final = 4
"""A move said this many times and still not done is lost."""
MAX_ANSWERS: Final = 3
"""Questions answered for one saying of a move before it is said afresh."""
REPAIR_TRIES: Final = 3
SOUNDS_LIKE: Final = 0.8
"""A transcript this close to the player's words (difflib's ratio) is what they said, misspelt."""
MAX_LINES: Final = 400
"""A game that takes more lines than this is stopped (reported as unfinished)."""

GAP_S: Final = 0.5
"""Silence before each line: the player waits for the room to be quiet."""
ALIGN: Final = math.lcm(SAMPLE_RATE // 10, round(CHUNK_SECONDS * SAMPLE_RATE), WINDOW)
"""Each line starts at a multiple of this many samples into the stream (a chunk's and the VAD window's),
whatever the host's replies took before: the voice activity detector sees it the same way every time.
0.8 s, as when the microphone's chunks were 0.1 s: where a line falls against the detector's windows
changes what it hears, so a table keeps its lines where they were and stays comparable across commits
(moved to 32 ms steps, the babble games played otherwise by chance: 12.6 → 14.1 utterances a move)."""
REPLY_WAIT_S: Final = 2.5
"""How long a player waits (in audio) for the host's answer before taking its silence as one."""
STEP_S: Final = 0.1


class Kind(StrEnum):
    """What a player is doing with a line."""

    CLUE = "clue"
    GUESS = "guess"
    PASS = "pass"
    QUIT = "quit"
    UNDO = "undo"  # taking back a wrong reveal (or pass)
    CORRECT = "correct"  # taking back a wrong clue: "no, the clue is ..."


MOVES: Final = (Kind.CLUE, Kind.GUESS, Kind.PASS)
"""The moves of the game, whose cost the bench reports (a quit and repairs are counted apart)."""
UNDOABLE: Final = ("reveal", "clue", "pass")
"""The wrong events an undo takes back (a penalty is not a move)."""


class Outcome(StrEnum):
    DONE = "done"
    LOST = "lost"  # said MAX_TRIES times, never done
    MOOT = "moot"  # the game moved on without it (a wrong event ended the turn, the game is over)


@dataclass(frozen=True)
class Seat:
    """A player: who they are at the table, and their voice."""

    name: str  # "red spymaster", "blue operatives", "player A"
    voice: TestVoice
    side: Side | None = None  # Duet


@dataclass(frozen=True)
class Move:
    kind: Kind
    seat: Seat
    text: str
    card: str | None = None
    clue: tuple[str, int] | None = None
    repairs: int | None = None  # UNDO / CORRECT: the seq of the wrong event taken back


@dataclass
class WrongEvent:
    """Something the host did that nobody meant."""

    kind: str  # reveal, clue, pass, penalty, undo, other
    seq: int
    meant: str
    happened: str
    ended_game: bool = False
    undone: bool = False


@dataclass
class Tally:
    """What one game cost the table."""

    lines: int = 0  # every utterance the players said
    lines_by: Counter[str] = field(default_factory=Counter)  # per kind of move (its answers included)
    done: Counter[str] = field(default_factory=Counter)
    lost: list[str] = field(default_factory=list)
    questions: int = 0  # questions the host asked (read in what it said)
    questions_by: Counter[str] = field(default_factory=Counter)
    reprompts: int = 0  # answers that neither did the move nor asked about it ("Sorry?", a re-prompt)
    silences: int = 0  # lines the host did not answer at all
    wrong: list[WrongEvent] = field(default_factory=list)
    replies_ms: list[float] = field(default_factory=list)
    audio_seconds: float = 0.0
    ended: bool = False  # the game reached its end
    quit: bool = False  # the table left by voice
    unfinished: str = ""  # why the game was stopped before its end
    words_misheard: list[str] = field(default_factory=list)  # clues taken with their number, the word as heard

    @property
    def moves_done(self) -> int:
        return sum(self.done[kind] for kind in MOVES)

    @property
    def move_lines(self) -> int:
        """Lines the game's moves cost, with the repairs of what went wrong; the goodbye left out."""
        return self.lines - self.lines_by[Kind.QUIT]

    @property
    def move_questions(self) -> int:
        """Questions the host asked about the game's moves and their repairs; the goodbye's apart."""
        return self.questions - self.questions_by[Kind.QUIT]

    @property
    def wrong_reveals(self) -> list[WrongEvent]:
        return [wrong for wrong in self.wrong if wrong.kind == "reveal"]


def seats_for(game: CompetitiveGame | DuetGame, voices: Sequence[TestVoice]) -> dict[str, Seat]:
    """The table's players, their voices taken in turn from `voices`: Classic's two spymasters and two
    teams of operatives, Duet's two players."""
    if isinstance(game, DuetGame):
        names = [("player A", Side.A), ("player B", Side.B)]
        return {side.value: Seat(name, voices[i % len(voices)], side) for i, (name, side) in enumerate(names)}
    roles = ["red spymaster", "red operatives", "blue spymaster", "blue operatives"]
    return {role: Seat(role, voices[i % len(voices)]) for i, role in enumerate(roles)}


class Table:
    """The players around one host. `chunks()` is their microphone, fed to the voice loop.

    `heard` is the host's mouth as the players hear it; `clock` (when given) turns the loop's compute
    into reply delays (`bench.reply_time`). Subclasses speak elsewhere (`bench.satellite`): they
    override `_line`."""

    def __init__(
        self,
        host: Host,
        heard: Announcements,
        voices: Sequence[TestVoice],
        *,
        condition: Condition | None = None,
        cache_dir: Path,
        seed: int = 0,
        per_clue: int = PER_CLUE,
        planned_turns: int = PLANNED_TURNS,
        quit_at_end: bool = True,
        clock: ReplyClock | None = None,
    ) -> None:
        game = host.game
        if not isinstance(game, CompetitiveGame | DuetGame):
            raise TypeError(f"no simulated table for {type(game).__name__}")
        self.host = host
        self.heard = heard
        self.lang = game.board.lang
        self.family = self.lang.family
        self.seats = seats_for(game, voices)
        self.condition = condition or Condition("clean")
        self.cache_dir = cache_dir
        self.seed = seed
        self.per_clue = per_clue
        self.planned_turns = planned_turns
        self.quit_at_end = quit_at_end
        self.clock = clock
        self.reader = Reader(self.lang, game.board.cards)
        self.tally = Tally()
        self.transcript: list[str] = []
        self.recorded: list[Audio] = []
        self._position = 0  # samples fed to the loop so far
        self._room_talk: Audio = np.zeros(0, dtype=np.float32)  # the table's talk around the line (`_talk_around`)
        self._seen = len(game.events)  # events already judged
        self._given_up: set[str] = set()  # cards the host never took from these voices: name others
        self._clue_skip = 0  # clue words given up
        self._pass_lost = -1  # the turn in which a pass was never taken
        self._reply: list[Said] = []
        self._reply_ms: float | None = None  # the last line's answer came this long after its speech ended
        self.saying: tuple[str, bool] | None = None  # the line being said (or last said), and whether it answers
        self._corrected: set[int] = set()  # wrong clues put right by voice
        self._commands = resolved_table(self.lang.value).get("commands", {})
        self._clue_words = [
            word for word in CLUE_WORDS[self.lang] if game.check_clue(word).verdict is Verdict.VALID
        ] or list(CLUE_WORDS[self.lang])

    @property
    def game(self) -> CompetitiveGame | DuetGame:
        game = self.host.game
        assert isinstance(game, CompetitiveGame | DuetGame)
        return game

    # ---- the microphone ------------------------------------------------------------------------

    def chunks(self) -> Iterator[Audio]:
        """The whole game as the microphone hears it."""
        yield from self._quiet(GAP_S, "start")
        yield from self.play()
        yield from self._quiet(GAP_S, "end")

    def play(self) -> Generator[Audio, None, None]:
        """The game, move by move, until its end (and a goodbye), or until it cannot go on."""
        while not self.game.over and not self.host.finished:
            if self.tally.lines >= MAX_LINES:
                self.tally.unfinished = f"stopped after {MAX_LINES} lines"
                break
            move = self._plan()
            if move is None:
                self.tally.unfinished = "no move left that these voices can make the host hear"
                break
            outcome = yield from self._move(move)
            if outcome is Outcome.LOST:
                self._give_up(move)
        if self.quit_at_end and not self.host.finished and self.tally.lines < MAX_LINES:
            yield from self._move(Move(Kind.QUIT, self._any_seat(), QUIT[self.family]))
        self.finish()

    def finish(self) -> None:
        """The game as it ended: whether it reached its end, whether the table left by voice (the voice loop
        stops as soon as the host is done, so the goodbye's last line is judged here), and which wrong
        events were taken back."""
        self.tally.ended = self.game.over
        self.tally.quit = self.host.finished
        if self.host.finished and not self.tally.done[Kind.QUIT]:
            self.tally.done[Kind.QUIT] += 1
        for wrong in self.tally.wrong:
            wrong.undone = wrong.seq in self._corrected or _taken_back(self.game.events, wrong.seq)

    def _quiet(self, seconds: float, *key: object) -> Iterator[Audio]:
        """No player speaks: the room as it is between lines (its hiss; in a babble room, the other talkers too)."""
        yield from self._feed(self._room(round(seconds * SAMPLE_RATE)), *key)

    def _room(self, samples: int) -> Audio:
        """The next `samples` of the table's talk around the current line (`_talk_around`); silence once it
        is used up, and in rooms without babble (the hiss is added by `_feed`)."""
        taken, self._room_talk = self._room_talk[:samples], self._room_talk[samples:]
        return np.concatenate([taken, np.zeros(samples - len(taken), dtype=np.float32)])

    def _talk_around(self, seat: Seat, text: str, number: int, before: int) -> Audio:
        """In a babble room, the other talkers around line `number`: they do not stop while a player waits for
        the room or for the host's answer. One stretch for the pause before the line (`before` samples) and
        the longest wait after it, at the level the line's own babble has (the condition's SNR below its
        speech's active power, as `bench.noise.mix_at_snr` mixes it), seeded by the line's number as the hiss
        is. Empty in the other rooms."""
        condition = self.condition
        if condition.kind != "babble" or condition.snr_db is None:
            return np.zeros(0, dtype=np.float32)
        samples = before + round((REPLY_WAIT_S + GAP_S) * SAMPLE_RATE)
        seed = seed_of(self.seed, "room", number)
        talk_rng, room_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
        talk = babble(samples, self.lang.value, talk_rng, cache_dir=self.cache_dir)
        talk = reverb(talk, room_rng) if condition.reverb else talk
        speech = synthesize(seat.voice, text, cache_dir=self.cache_dir)
        return _unit(talk, math.sqrt(active_power(speech) / 10 ** (condition.snr_db / 10)))

    def _feed(self, audio: Audio, *key: object) -> Iterator[Audio]:
        """Audio into the microphone, with the room's faint hiss, a chunk at a time. The hiss is seeded by
        `key` (which line, which pause), not by what was fed before: a line sounds the same whenever the
        host answered the one before, so two commits are compared on the same audio, move for move."""
        heard = self._hissed(audio, *key)
        self.recorded.append(heard)
        self.tally.audio_seconds += len(heard) / SAMPLE_RATE
        size = round(CHUNK_SECONDS * SAMPLE_RATE)
        for start in range(0, len(heard), size):
            chunk = heard[start : start + size]
            self._position += len(chunk)
            yield chunk

    def _hissed(self, audio: Audio, *key: object) -> Audio:
        """`audio` with the room's faint hiss under it, seeded by `key` (which line, which pause): the same
        line gets the same hiss at a local microphone and through a satellite."""
        hiss = np.random.default_rng(seed_of(self.seed, "hiss", *key)).standard_normal(len(audio))
        return (audio + hiss * HISS).astype(np.float32)

    def _line(self, seat: Seat, text: str, *, answer: bool = False) -> Iterator[Audio]:
        """Say one line into the room and wait for the host's answer (`self._reply`): here the voice
        loop's microphone, fed as fast as the loop takes it. `answer`: the line answers a question."""
        number = self.tally.lines
        gap = round(GAP_S * SAMPLE_RATE)
        aligned = gap + (-(self._position + gap)) % ALIGN  # each line starts on a chunk and a VAD window
        self._room_talk = self._talk_around(seat, text, number, aligned)  # the table talks on around the line
        yield from self._feed(self._room(aligned), "gap", number)
        line = self.line(seat, text)
        mark = len(self.heard.said)
        start = self._position
        yield from self._feed(line.audio, "line", number)
        speech_end_s = (start + line.speech_end) / SAMPLE_RATE
        ended = len(self.heard.said)
        waited, step = 0.0, 0
        while len(self.heard.said) == mark and waited < REPLY_WAIT_S:
            yield from self._quiet(STEP_S, "wait", number, step)
            waited, step = waited + STEP_S, step + 1
        self._reply = self.heard.said[mark:]
        after = self.heard.said[ended:]
        if after and self.clock is not None:
            self._reply_ms = self.clock.reply_ms(speech_end_s, after[0].at)

    def line(self, seat: Seat, text: str) -> Line:
        """The line as the microphone gets it, seeded by what is said and when in the game."""
        seed = seed_of(self.seed, self.tally.lines, seat.voice.id, text, self.condition.name)
        return line_audio(seat.voice, text, self.condition, seed=seed, lang=self.lang, cache_dir=self.cache_dir)

    # ---- saying and judging a move -------------------------------------------------------------

    def _say(self, move: Move, seat: Seat, text: str, *, answer: bool) -> Iterator[Audio]:
        """One line for `move`: said to the host by its name when it listens the addressed way (an answer
        to its question needs no name); then what the host answered is read."""
        said = self.as_said(text, answer=answer)
        self.tally.lines += 1
        self.tally.lines_by[move.kind] += 1
        self.transcript.append(f"{seat.name}: {said}")
        self.saying = (text, answer)
        self._reply_ms = None
        yield from self._line(seat, said, answer=answer)
        if self._reply_ms is not None:
            self.tally.replies_ms.append(self._reply_ms)
        delay = "" if self._reply_ms is None else f" ({self._reply_ms:.0f} ms)"
        self.transcript += [f"  host{delay if n == 0 else ''}: {reply.text}" for n, reply in enumerate(self._reply)]
        if not self._reply:
            self.tally.silences += 1
            self.transcript.append("  (silence)")

    def as_said(self, text: str, *, answer: bool = False) -> str:
        if not answer and self.host.listening is ListenMode.ADDRESSED:
            return f"{spoken_host_name(self.lang)}, {text}"
        return text

    def _move(self, move: Move, tries: int = MAX_TRIES) -> Generator[Audio, None, Outcome]:
        for attempt in range(tries):
            yield from self._say(move, move.seat, self._again(move, attempt), answer=False)
            answers = 0
            while True:
                done, wrong = self._judge(move)
                if done:
                    self.tally.done[move.kind] += 1
                    return Outcome.DONE
                if wrong:
                    yield from self._repair(move, wrong)
                    break
                question = self._question(move)
                if question is None:
                    if self._reply:
                        self.tally.reprompts += 1
                    break
                answer = self._answer(move, question)
                if answer is None or answers >= MAX_ANSWERS:
                    break
                answers += 1
                yield from self._say(move, answer[0], answer[1], answer=True)
            if self.host.finished:
                return Outcome.MOOT
            if move.kind in MOVES and (self.game.over or self._plan() != move):
                return Outcome.MOOT
            if move.repairs is not None and (self.game.over or self._repaired(move)):
                return Outcome.MOOT
        self.tally.lost.append(f"{move.kind}: {move.text}")
        return Outcome.LOST

    def _again(self, move: Move, attempt: int) -> str:
        """The move as said on this attempt: a card named after a lead-in ("é o trovão") is said plainly
        when it was not taken the first time, as a player does who is not understood."""
        if attempt > 0 and move.kind is Kind.GUESS and move.card is not None:
            return move.card.lower()
        return move.text

    def _question(self, move: Move) -> Question | None:
        """The question the host asked in its answer, if any (the last one, the one it waits on)."""
        found = self.reader.questions([said.text for said in self._reply])
        self.tally.questions += len(found)
        self.tally.questions_by[move.kind] += len(found)
        return found[-1] if found else None

    def _judge(self, move: Move) -> tuple[bool, list[WrongEvent]]:
        """Whether the events since the last line did the move, and what they did that nobody meant."""
        game = self.game
        new = [event for event in game.events[self._seen :] if event.type is not EventType.TIMER]
        self._seen = len(game.events)
        done = move.kind is Kind.QUIT and self.host.finished
        wrong: list[WrongEvent] = []
        for event in new:
            meant = self._meant(move, event)
            if meant is True:
                done = True
            elif meant is False:
                wrong.append(self._wrong(move, event))
        if move.kind is Kind.CORRECT and done and move.repairs is not None:
            self._corrected.add(move.repairs)
        self.tally.wrong += wrong
        return done, wrong

    def _meant(self, move: Move, event: Event) -> bool | None:
        """True: the event is the move; False: nobody meant it; None: it follows from a move (a turn
        ended by a wrong guess, the game over, a token taken)."""
        kind = event.type
        if kind is EventType.CLUE:
            if move.kind not in (Kind.CLUE, Kind.CORRECT) or move.clue is None:
                return False
            if str(event["number"]).strip() != str(move.clue[1]):
                return False  # a number nobody said changes what the operatives may do: taken back
            if not self._same_word(move, event["word"]):
                # the host announces a clue's word as it heard it ("sigada" for "cidade"): the operatives
                # heard their spymaster, the number is right, and the table plays on
                self.tally.words_misheard.append(f"{event['word']} for {move.clue[0]}")
            return True
        if kind is EventType.CLUE_REJECTED:
            return False  # the players' clue words are legal: a penalty nobody deserved
        if kind is EventType.GUESS:
            return move.kind is Kind.GUESS and event["card"] == move.card
        if kind is EventType.TURN_ENDED and event["reason"] == "passed":
            if move.kind is Kind.PASS:
                return True
            before = self.game.events[event.seq - 2] if event.seq >= 2 else None
            follows = before is not None and before.type in (EventType.GUESS, EventType.SIDE_DONE)
            return None if follows and isinstance(self.game, DuetGame) else False  # Duet: greens all found
        if kind is EventType.UNDO:
            if move.kind in (Kind.UNDO, Kind.CORRECT):  # a correction takes the wrong clue back, then gives it
                return True
            # the table's own "yes" to "undo CEREJA?" while on another move: it wanted that card back
            wanted = any(wrong.seq == event["undoes"] and wrong.kind in UNDOABLE for wrong in self.tally.wrong)
            return None if wanted and event["undoes"] not in self._corrected else False
        if kind in (EventType.COVER, EventType.GAME_STARTED):
            return False
        return None

    def _same_clue(self, move: Move, word: str, number: object) -> bool:
        if move.clue is None:
            return False
        return self._same_word(move, word) and str(number).strip() == str(move.clue[1])

    def _same_word(self, move: Move, word: str) -> bool:
        """Whether `word` is the clue's word as the table hears it: the host keeps a clue's word as it was
        transcribed ("mewsic" for "music"), and nobody at the table takes that for another clue."""
        if move.clue is None:
            return False
        heard, meant = _folded(word), _folded(move.clue[0])
        return heard == meant or difflib.SequenceMatcher(None, heard, meant).ratio() >= SOUNDS_LIKE

    def _wrong(self, move: Move, event: Event) -> WrongEvent:
        kinds = {
            EventType.GUESS: "reveal",
            EventType.CLUE: "clue",
            EventType.TURN_ENDED: "pass",
            EventType.CLUE_REJECTED: "penalty",
            EventType.UNDO: "undo",
        }
        happened = " ".join(f"{value}" for name, value in event.fields.items() if name in ("card", "word", "number"))
        return WrongEvent(
            kinds.get(event.type, "other"),
            event.seq,
            f"{move.kind} {move.text}",
            f"{event.type.value} {happened}".strip(),
            ended_game=self.game.over,
        )

    # ---- answers ---------------------------------------------------------------------------------

    def _answer(self, move: Move, question: Question) -> tuple[Seat, str] | None:
        """The truthful answer to the host's question about `move`, and who gives it; None when there is
        no answer to give (the move is then said again)."""
        yes, no = YES[self.family], NO[self.family]
        asked = question.asked
        if asked is Asked.CARDS:
            offered = [_folded(card) for card in question.cards]
            if move.kind is Kind.GUESS and move.card is not None and _folded(move.card) in offered:
                return move.seat, yes if len(offered) == 1 else move.card.lower()
            return move.seat, no
        if asked in (Asked.CLUE, Asked.DOUBTFUL):
            meant = move.clue[1] if move.clue is not None else None
            number = question.fields.get("number", meant)  # "is the clue X allowed?" says no number
            right = move.kind in (Kind.CLUE, Kind.CORRECT) and self._same_clue(
                move, question.fields.get("word", ""), number
            )
            seat = self._opponent(move.seat) if asked is Asked.DOUBTFUL else move.seat
            return seat, yes if right else no
        if asked is Asked.NUMBER:  # "fruit: how many?": the number, when that is the clue's word
            said = question.fields.get("word", "")
            if move.kind in (Kind.CLUE, Kind.CORRECT) and move.clue is not None and self._same_word(move, said):
                return move.seat, NUMBERS[self.family][move.clue[1]]
            return move.seat, no
        if asked is Asked.COMMAND:
            return move.seat, yes if self._is_command(move, question.fields.get("what", "")) else no
        if asked is Asked.UNDO:  # "Undo the last guess, CEREJA?", "Undo the clue fruit, 2?", "Undo the pass?"
            named = str(question.fields.get("card") or question.fields.get("word") or "")
            wanted = [move.repairs] if move.kind is Kind.UNDO else self._unrepaired()
            right = any(self._names(question.key, named, seq) for seq in wanted if seq is not None)
            return move.seat, yes if right else no
        if asked is Asked.QUIT:
            return move.seat, yes if move.kind is Kind.QUIT else no
        if asked is Asked.NEW_GAME:
            return move.seat, no
        if asked is Asked.SIDE and move.seat.side is not None:
            return move.seat, SIDE_ANSWER[self.family].format(side=move.seat.side.value.upper())
        return None

    def _is_command(self, move: Move, what: str) -> bool:
        """Whether "Did you say: WHAT?" is the command being made: WHAT is one of the language's ways of
        saying it, or sounds like what was said ("Passo" for "pass", not "pause")."""
        names = {Kind.PASS: "PASS", Kind.UNDO: "UNDO", Kind.QUIT: "QUIT"}
        if move.kind not in names:
            return False
        heard = _words(what)
        phrases = {_words(phrase) for phrase in self._commands.get(names[move.kind], [])}
        return heard in phrases or difflib.SequenceMatcher(None, heard, _words(move.text)).ratio() >= SOUNDS_LIKE

    def _opponent(self, seat: Seat) -> Seat:
        """Who rules on a doubtful clue: the other team's spymaster, the Duet partner."""
        if seat.side is not None:
            return self.seats[seat.side.other.value]
        team = "blue" if seat.name.startswith("red") else "red"
        return self.seats[f"{team} spymaster"]

    def _any_seat(self) -> Seat:
        return next(iter(self.seats.values()))

    # ---- taking back what nobody meant -------------------------------------------------------------

    def _repair(self, move: Move, wrong: list[WrongEvent]) -> Generator[Audio, None, None]:
        """As a table would: "undo" after a card revealed wrongly (or a pass nobody made), "no, the clue
        is ..." after a clue heard wrongly. A penalty, an undo and a game over cannot be taken back."""
        for event in wrong:
            if self.game.over:
                return
            if event.kind in ("reveal", "pass"):
                repair = Move(Kind.UNDO, move.seat, UNDO[self.family], repairs=event.seq)
            elif event.kind == "clue" and move.clue is not None:
                text = CORRECTION[self.family].format(clue=self._clue_text(*move.clue))
                correction = Move(Kind.CORRECT, move.seat, text, clue=move.clue, repairs=event.seq)
                # a correction counts only as the first line after the clue: once, then "undo" takes it back
                if (yield from self._move(correction, 1)) is not Outcome.LOST or self.game.over:
                    continue
                self.tally.lost.pop()  # not lost: taken back the other way
                repair = Move(Kind.UNDO, move.seat, UNDO[self.family], repairs=event.seq)
            else:
                continue
            yield from self._move(repair, REPAIR_TRIES)

    def _repaired(self, move: Move) -> bool:
        assert move.repairs is not None
        return self._repaired_seq(move.repairs)

    def _repaired_seq(self, seq: int) -> bool:
        return seq in self._corrected or _taken_back(self.game.events, seq)

    def _unrepaired(self) -> list[int]:
        """The wrong events still standing that an undo could take back: a table asked "undo CEREJA?"
        while CEREJA stands revealed by mistake says yes, whatever move it is on (its "undo" was heard late)."""
        return [
            wrong.seq
            for wrong in self.tally.wrong
            if wrong.kind in UNDOABLE and not wrong.ended_game and not self._repaired_seq(wrong.seq)
        ]

    def _names(self, key: str, named: str, seq: int) -> bool:
        """Whether the host's undo question (its prompt key and the card or word it names) is about event `seq`."""
        event = self.game.events[seq - 1]
        if key != _undo_key(event):
            return False
        return not named or _folded(named) == _folded(str(event.get("card", event.get("word", ""))))

    # ---- the plan -----------------------------------------------------------------------------------

    def _plan(self) -> Move | None:
        """The next move, from the game as the table sees it (a pure function of the game and of the cards
        and clue words given up): the same state gives the same move."""
        game = self.game
        phase = game.state.phase
        if phase is Phase.CLUE:
            seat = self._clue_giver()
            word = self._clue_words[(len(game.state.clues) + self._clue_skip) % len(self._clue_words)]
            return Move(Kind.CLUE, seat, self._clue_text(word, self.per_clue), clue=(word, self.per_clue))
        if phase not in (Phase.GUESS, Phase.SUDDEN_DEATH):
            return None
        seat, key, judge = self._guesser()
        if len(game.state.clues) > self.planned_turns:
            assassin = self._hidden(key, judge, Identity.ASSASSIN)
            if assassin:
                return self._guess(seat, assassin[0])
        made = game.state.guesses_this_turn
        own = self._hidden(key, judge, Identity.GREEN if isinstance(game, DuetGame) else Identity(self._team().value))
        wants_pass = made >= self.per_clue or (not own and made > 0)
        if phase is Phase.GUESS and wants_pass and self._pass_lost != self._turn():
            return Move(Kind.PASS, seat, PASS[self.family])
        if own:
            return self._guess(seat, own[0])
        others = self._hidden(key, judge, Identity.BYSTANDER)
        if isinstance(game, CompetitiveGame):
            others += self._hidden(key, judge, Identity(self._team().other.value))
        return self._guess(seat, others[0]) if others else None

    def _clue_giver(self) -> Seat:
        """Who gives the clue now: the team's spymaster; in Duet the player whose turn it is (A when
        either may)."""
        game = self.game
        if isinstance(game, DuetGame):
            side = game.clue_givers()[0]
            assert isinstance(side, Side)
            return self.seats[side.value]
        return self.seats[f"{game.team.value} spymaster"]

    def _team(self) -> Team:
        game = self.game
        assert isinstance(game, CompetitiveGame)
        return game.team

    def _guesser(self) -> tuple[Seat, Sequence[Identity], Side | None]:
        """Who guesses now, the key the guess is judged on (the cards the clue is about), and in Duet
        whose side that key is."""
        game = self.game
        if isinstance(game, CompetitiveGame):
            return self.seats[f"{game.team.value} operatives"], game.board.key, None
        giver = game.state.giver
        if game.state.phase is Phase.SUDDEN_DEATH or giver is None:
            guesser = next(side for side in Side if game.has_words_to_find(side))
            return self.seats[guesser.value], game.board.side_key(guesser.other), guesser.other
        return self.seats[giver.other.value], game.board.side_key(giver), giver

    def _hidden(self, key: Sequence[Identity], judge: Side | None, identity: Identity) -> list[str]:
        """The cards of that identity on the key that are still to be found (in Duet: not yet judged from
        that side), and not given up."""
        game = self.game
        return [
            card
            for index, card in enumerate(game.board.cards)
            if key[index] is identity
            and not game.is_covered(index)
            and card not in self._given_up
            and not (judge is not None and judge in game.marks(index))
        ]

    def _guess(self, seat: Seat, card: str) -> Move:
        """A card named alone, or one time in three after a lead-in ("I think it's the ...")."""
        index = self.game.board.cards.index(card)
        text = card.lower()
        if index % 3 == 0:
            leads = LEAD_INS[self.family]
            lead = leads[index // 3 % len(leads)]
            text = " ".join(lead.format(card=card.lower(), article=_article(card, self.family)).split())
        return Move(Kind.GUESS, seat, text, card=card)

    def _clue_text(self, word: str, number: int) -> str:
        return f"{word}, {NUMBERS[self.family][number]}"

    def _give_up(self, move: Move) -> None:
        """A move the host never took: another card, another clue word next time, another card instead of
        a pass."""
        if move.kind is Kind.GUESS and move.card is not None:
            self._given_up.add(move.card)
        elif move.kind is Kind.CLUE:
            self._clue_skip += 1
        elif move.kind is Kind.PASS:
            self._pass_lost = self._turn()  # the operatives name another card instead, this turn

    def _turn(self) -> int:
        """Which turn this is: the clues given so far."""
        return len(self.game.state.clues)


def _undo_key(event: Event) -> str:
    """The host's question before taking `event` back: a guess's, a clue's or a pass's."""
    if event.type is EventType.CLUE:
        return "undo.confirm_clue"
    if event.type is EventType.TURN_ENDED:
        return "undo.confirm_pass"
    return "undo.confirm"


def _taken_back(events: Sequence[Event], seq: int) -> bool:
    """Whether an undo later in the log took back event `seq` (an undo returns the game to before the
    guess it names, and everything after it)."""
    return any(event.type is EventType.UNDO and event.seq > seq and event["undoes"] <= seq for event in events)


def _folded(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s']", " ", fold_text(text)).split())


def _words(text: str) -> str:
    return _folded(text).replace("'", " ")
