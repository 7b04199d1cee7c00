"""Section 4 of the bench: a table. Whole games by voice, what each move costs the players.

The players (`bench.players`) are held-out voices of the corpus, never the tuning ones, that listen to
the host and answer it truthfully; they play whole games through the real voice loop (Silero VAD,
Whisper base, the host), faster than real time, and through a real Wyoming satellite in real time
(`bench.satellite`). One row per language, edition, way of playing and condition:

- utterances per completed move: every line the players said (answers to questions, repeats, taking
  back what went wrong) over the moves done as meant (clues, guesses, passes); the goodbye apart;
- questions per move: the host's questions back ("CEREJA?", "Clue: fruit, 2? Yes or no."), read in
  what it said;
- silences: lines the host did not answer at all; re-prompts: answers that neither did the move nor
  asked about it ("Sorry?", "say the card again");
- moves lost: said MAX_TRIES times and never done;
- wrong events: clues, reveals, passes and penalties nobody meant, and how many were taken back by voice;
- reply p50 / p90: end of the player's speech to the host's first announcement, as a table would wait
  on this machine (`bench.reply_time`).
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from bench import ROOT
from bench.announcements import Announcements
from bench.corpus import voices_of
from bench.noise import Condition
from bench.players import MOVES, Kind, Table, Tally
from bench.recognition import progress
from bench.reply_time import ReplyClock
from bench.report import goal_met, percentile, table
from bench.voices import TestVoice
from engine.board import Board, deal_competitive, deal_duet
from engine.decks import words
from engine.editions import new_game
from engine.lang import Lang
from engine.variants import Variants
from voicehost.ears.heard import Recognizer
from voicehost.ears.streams import Ears, SegmentedEars
from voicehost.frontends.voice_loop import VoiceLoop
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings
from voicehost.understanding.moment import ListenMode

EDITIONS: Final = ("classic", "duet")
WAYS: Final = ("open", "addressed")
CONDITIONS: Final = "clean,babble-10-reverb"
LINES_GOAL: Final = {"clean": 1.2, "noisy": 1.5}
"""Utterances per completed move (issue 26): clean, and in babble (any noise)."""
WRONG_GOAL: Final = 0.5
"""Wrong events, % of the events the host made (moves done as meant and wrong ones)."""
QUICK_TURNS: Final = 1
"""--quick: one turn each, then the assassin (a short game)."""


@dataclass(frozen=True)
class Cell:
    """One row of the table: a language, an edition, a way of playing, a condition, local or through a
    satellite."""

    lang: Lang
    edition: str
    way: str
    condition: Condition
    through: str = "local"  # or "satellite"

    @property
    def name(self) -> str:
        return f"{self.lang.value}-{self.edition}-{self.way}-{self.condition.name}-{self.through}"


@dataclass
class Played:
    """One game: what it cost, its transcript, how long it took."""

    cell: Cell
    tally: Tally
    transcript: list[str]
    seconds: float
    voices: tuple[str, ...]


@dataclass
class Row:
    """The games of one cell, pooled."""

    cell: Cell
    games: list[Played] = field(default_factory=list)

    def total(self) -> Tally:
        pooled = Tally()
        for game in self.games:
            tally = game.tally
            pooled.lines += tally.lines
            pooled.lines_by += tally.lines_by
            pooled.done += tally.done
            pooled.lost += tally.lost
            pooled.questions += tally.questions
            pooled.questions_by += tally.questions_by
            pooled.reprompts += tally.reprompts
            pooled.silences += tally.silences
            pooled.wrong += tally.wrong
            pooled.replies_ms += tally.replies_ms
            pooled.audio_seconds += tally.audio_seconds
        return pooled


def table_voices(lang: Lang, hard_tail: bool = False, role: str = "held-out") -> list[TestVoice]:
    """The voices of the language that sit at the table: the held-out person-like ones (espeak-ng's own,
    the hard tail, only when asked); the tuning ones when the calibration plays (`bench.calibrate_answers`)."""
    return [voice for voice in voices_of(lang, role) if hard_tail or not voice.hard_tail]


def board_for(lang: Lang, edition: str, game: int) -> Board:
    """The first game is played on the tests' board of the language; more games on boards dealt with
    fixed seeds."""
    if game == 0:
        path = ROOT / "tests" / "boards" / f"{edition}-{lang.value}.json"
        return Board.from_dict(json.loads(path.read_text(encoding="utf-8")))
    rng = random.Random(1000 + game)
    deal = deal_duet if edition == "duet" else deal_competitive
    return deal(list(words(lang)), lang, rng)


def cells(
    langs: Sequence[Lang], conditions: Sequence[Condition], editions: Sequence[str], ways: Sequence[str]
) -> Iterator[Cell]:
    """The local rows: every language, condition and edition the open way; the addressed way in Classic."""
    for lang in langs:
        for condition in conditions:
            for edition in editions:
                for way in ways:
                    if way == "open" or edition == "classic":
                        yield Cell(lang, edition, way, condition)


def play_local(
    recognizer: Recognizer,
    cell: Cell,
    *,
    game: int,
    cache_dir: Path,
    planned_turns: int,
    hard_tail: bool = False,
    voices: Sequence[TestVoice] = (),
    listened: Callable[[Ears, Host, Table], Ears] | None = None,
) -> Played:
    """One whole game through the voice loop, fed as fast as it takes the sound: by `voices` (the held-out
    ones when none are given); `listened` wraps the host's ears (what the calibration keeps of each line)."""
    board = board_for(cell.lang, cell.edition, game)
    voices = list(voices) or table_voices(cell.lang, hard_tail)
    if not voices:
        raise LookupError(f"no held-out voice installed for {cell.lang.value}")
    heard = Announcements()
    listening = ListenMode.ADDRESSED if cell.way == "addressed" else ListenMode.OPEN
    host = Host(new_game(board, Variants()), Prompts.load(cell.lang), heard, settings=HostSettings(listening=listening))
    host.start()
    clock = ReplyClock()
    ears: Ears = clock.ears(SegmentedEars(clock.recognizer(recognizer)))
    players = Table(
        host,
        heard,
        voices,
        condition=cell.condition,
        cache_dir=cache_dir,
        seed=game,
        planned_turns=planned_turns,
        clock=clock,
    )
    players.transcript.append(f"host: {heard.said[0].text}")
    ears = listened(ears, host, players) if listened is not None else ears
    started = time.monotonic()
    VoiceLoop(host, ears).run(clock.chunks(players.chunks()))
    players.finish()
    seconds = time.monotonic() - started
    host.close()
    return Played(cell, players.tally, players.transcript, seconds, tuple(voice.id for voice in voices))


# ---- the tables ----------------------------------------------------------------------------------


def per_move(part: int, moves: int) -> float | None:
    return part / moves if moves else None


def lines_goal(condition: Condition) -> float:
    return LINES_GOAL["clean" if condition.kind == "clean" else "noisy"]


def wrong_share(tally: Tally) -> float | None:
    acted = tally.moves_done + len(tally.wrong)
    return 100 * len(tally.wrong) / acted if acted else None


def _wrong_cell(tally: Tally) -> str:
    misheard = f"; {len(tally.words_misheard)} clue words as heard" if tally.words_misheard else ""
    if not tally.wrong:
        return f"0{misheard}"
    kinds = Counter(wrong.kind for wrong in tally.wrong)
    undone = sum(wrong.undone for wrong in tally.wrong)
    listed = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
    return f"{len(tally.wrong)} ({listed}; {undone} undone{misheard})"


def _games_cell(row: Row) -> str:
    ended = sum(game.tally.ended for game in row.games)
    left = sum(game.tally.quit for game in row.games)
    return f"{ended} / {left} of {len(row.games)}"


def _latency_cell(tally: Tally) -> str:
    p50, p90 = percentile(tally.replies_ms, 50), percentile(tally.replies_ms, 90)
    return "–" if p50 is None or p90 is None else f"{p50:.0f} / {p90:.0f}"


def rows_table(rows: Sequence[Row]) -> str:
    headers = [
        "language", "edition", "way", "condition", "through", "games ended / left by voice", "moves done",
        "utterances / move", "questions / move", "re-prompts", "silences", "moves lost", "wrong events",
        "reply p50 / p90 ms", "≤ goal?",
    ]  # fmt: skip
    body: list[list[object]] = []
    for row in rows:
        tally, cell = row.total(), row.cell
        cost = per_move(tally.move_lines, tally.moves_done)
        body.append([
            cell.lang.value, cell.edition, cell.way, cell.condition.name, cell.through, _games_cell(row),
            tally.moves_done, cost, per_move(tally.move_questions, tally.moves_done), tally.reprompts,
            tally.silences, len(tally.lost), _wrong_cell(tally), _latency_cell(tally),
            goal_met(cost, lines_goal(cell.condition)),
        ])  # fmt: skip
    return table(headers, body)


def kinds_table(rows: Sequence[Row]) -> str:
    """Per kind of move, pooled over languages and editions: where the utterances go."""
    headers = ["through", "condition", "way", *[f"{kind}: utterances / done" for kind in (*MOVES, Kind.QUIT)],
               "repairs (undo, correction): utterances / done"]  # fmt: skip
    groups: dict[tuple[str, str, str], Tally] = {}
    for row in rows:
        key = (row.cell.through, row.cell.condition.name, row.cell.way)
        pooled = groups.setdefault(key, Tally())
        total = row.total()
        pooled.lines_by += total.lines_by
        pooled.done += total.done
    body: list[list[object]] = []
    for (through, condition, way), tally in groups.items():
        cells_ = [_kind_cell(tally, kind) for kind in (*MOVES, Kind.QUIT)]
        repairs = tally.lines_by[Kind.UNDO] + tally.lines_by[Kind.CORRECT]
        done = tally.done[Kind.UNDO] + tally.done[Kind.CORRECT]
        body.append([through, condition, way, *cells_, f"{repairs} / {done}"])
    return table(headers, body)


def _kind_cell(tally: Tally, kind: Kind) -> str:
    lines, done = tally.lines_by[kind], tally.done[kind]
    ratio = f"{lines / done:.2f}" if done else "–"
    return f"{ratio} ({lines} / {done})"


def goals(rows: Sequence[Row]) -> list[list[object]]:
    """The closing Goals rows: utterances per move clean and noisy, locally and through a satellite;
    silences; wrong events."""
    found: list[list[object]] = []
    for through in ("local", "satellite"):
        for noisy in (False, True):
            chosen = [
                row for row in rows if row.cell.through == through and (row.cell.condition.kind != "clean") == noisy
            ]
            if not chosen:
                continue
            lines = sum(row.total().move_lines for row in chosen)
            done = sum(row.total().moves_done for row in chosen)
            cost = per_move(lines, done)
            limit = LINES_GOAL["noisy" if noisy else "clean"]
            what = f"utterances per completed move, {'babble' if noisy else 'clean'}, {through}"
            found.append([what, f"≤ {limit:g}", "–" if cost is None else f"{cost:.2f} ({lines} / {done})",
                          goal_met(cost, limit)])  # fmt: skip
    if rows:
        silences = sum(row.total().silences for row in rows)
        lines = sum(row.total().lines for row in rows)
        found.append(["silences after a line (the host said nothing)", "= 0", f"{silences} of {lines} lines",
                      goal_met(silences, 0, "=")])  # fmt: skip
        wrong = [event for row in rows for event in row.total().wrong]
        acted = sum(row.total().moves_done for row in rows) + len(wrong)
        share = 100 * len(wrong) / acted if acted else None
        undone = sum(event.undone for event in wrong)
        found.append(["wrong events (reveals, clues, passes, penalties), each undone by voice", f"≤ {WRONG_GOAL:g} %",
                      f"{share or 0:.1f} % ({len(wrong)} of {acted}; {undone} undone)",
                      goal_met(share, WRONG_GOAL) if undone == len(wrong) else "**no**"])  # fmt: skip
    return found


def wrong_list(rows: Sequence[Row], limit: int = 20) -> str:
    listed = [
        f"- {row.cell.name}: {event.happened} (meant: {event.meant}){' — undone' if event.undone else ''}"
        for row in rows
        for event in row.total().wrong
    ]
    if not listed:
        return ""
    more = f"\n- … and {len(listed) - limit} more" if len(listed) > limit else ""
    return "Wrong events:\n\n" + "\n".join(listed[:limit]) + more


def section(rows: Sequence[Row], notes: Sequence[str]) -> str:
    parts = ["## 4. A table: whole games by voice", rows_table(rows), "Per kind of move:", kinds_table(rows)]
    listed = wrong_list(rows)
    if listed:
        parts.append(listed)
    seconds = sum(game.seconds for row in rows for game in row.games)
    audio = sum(game.tally.audio_seconds for row in rows for game in row.games)
    voices = sorted({voice for row in rows for game in row.games for voice in game.voices})
    parts.append(
        f"{sum(len(row.games) for row in rows)} games, {audio / 60:.1f} min of table audio played in "
        f"{seconds / 60:.1f} min; voices: {', '.join(voices)}."
    )
    parts += list(notes)
    return "\n\n".join(parts)


def write_transcripts(rows: Sequence[Row], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for row in rows:
        for number, game in enumerate(row.games):
            path = folder / f"{row.cell.name}-{number}.txt"
            path.write_text("\n".join(game.transcript) + "\n", encoding="utf-8")


def run(
    recognizer: Recognizer,
    chosen: Sequence[Cell],
    *,
    games: int,
    cache_dir: Path,
    planned_turns: int,
    hard_tail: bool = False,
) -> list[Row]:
    """Every local cell, `games` games each."""
    rows: list[Row] = []
    for cell in chosen:
        row = Row(cell)
        for number in range(games):
            progress(f"table: {cell.name} game {number + 1} of {games}")
            played = play_local(
                recognizer, cell, game=number, cache_dir=cache_dir, planned_turns=planned_turns, hard_tail=hard_tail
            )
            tally = played.tally
            progress(
                f"table: {tally.moves_done} moves in {tally.move_lines} utterances, {len(tally.lost)} lost, "
                f"{len(tally.wrong)} wrong, {played.seconds:.0f} s for {tally.audio_seconds:.0f} s of audio"
            )
            row.games.append(played)
        rows.append(row)
    return rows


def play_satellite(
    cell: Cell,
    *,
    game: int,
    python: Path,
    model_dir: Path,
    cache_dir: Path,
    folder: Path,
    planned_turns: int,
    hard_tail: bool = False,
) -> Played:
    """One whole game through a real wyoming-satellite, in real time (`bench.satellite`)."""
    from bench.satellite import play_game

    voices = table_voices(cell.lang, hard_tail)
    if not voices:
        raise LookupError(f"no held-out voice installed for {cell.lang.value}")
    started = time.monotonic()
    players = play_game(
        board_for(cell.lang, cell.edition, game),
        voices,
        python=python,
        model_dir=model_dir,
        folder=folder / f"{cell.name}-{game}",
        cache_dir=cache_dir,
        condition=cell.condition,
        listening=ListenMode.ADDRESSED if cell.way == "addressed" else ListenMode.OPEN,
        seed=game,
        planned_turns=planned_turns,
    )
    seconds = time.monotonic() - started
    return Played(cell, players.tally, players.transcript, seconds, tuple(voice.id for voice in voices))


def run_satellite(
    chosen: Sequence[Cell],
    *,
    games: int,
    model_dir: Path,
    cache_dir: Path,
    planned_turns: int,
    hard_tail: bool = False,
) -> tuple[list[Row], list[str]]:
    """Every satellite cell, `games` games each; notes say why none could be played."""
    import tempfile

    from bench.satellite import SatelliteUnavailable, satellite_python

    try:
        python = satellite_python()
    except SatelliteUnavailable as exc:
        return [], [f"Through a satellite: not measured ({exc})."]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-satellite-") as folder:
        for cell in chosen:
            row = Row(cell)
            for number in range(games):
                progress(f"table: {cell.name} game {number + 1} of {games} (real time)")
                played = play_satellite(
                    cell,
                    game=number,
                    python=python,
                    model_dir=model_dir,
                    cache_dir=cache_dir,
                    folder=Path(folder),
                    planned_turns=planned_turns,
                    hard_tail=hard_tail,
                )
                progress(f"table: {played.tally.moves_done} moves in {played.tally.move_lines} utterances")
                row.games.append(played)
            rows.append(row)
    return rows, []
