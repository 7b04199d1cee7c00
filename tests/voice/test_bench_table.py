"""The bench's simulated table (bench/players.py) without sound: the same players, their lines typed into
the real host as `voicehost play --text` does, so that what they do with what the host says is checked
fast and exactly. The games by voice are tests/test_voice_games.py and `python -m bench --sections table`.

- The players read the host's questions in what it says, against the prompt files as they are (a
  reworded file needs no change in the bench), and nothing else it says is taken for a question.
- Typed, every move costs one line: the bench counts a perfect host as 1.0 utterances per move.
- They answer truthfully ("Did you say: pause?" is no when they said pass), say a move again when met
  with silence, and take back a card revealed that nobody meant, by voice.
- The reply delay of a game played faster than real time is rebuilt as a table would wait.
"""

from __future__ import annotations

import itertools
import json
import string
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.announcements import QUESTIONS, Announcements, Asked, Reader, prompt_file
from bench.corpus import default_cache
from bench.lines import find_voice
from bench.players import Kind, Seat, Table
from bench.reply_time import ReplyClock
from engine.board import Board
from engine.editions import new_game
from engine.lang import Lang
from engine.variants import Variants
from tests.table_promises import broken_promises
from voicehost.audio.samples import Audio
from voicehost.ears.heard import Heard
from voicehost.ears.vad import END_SILENCE_MS, PAUSE_MS
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings
from voicehost.understanding.moment import ListenMode

BOARDS = Path(__file__).resolve().parents[1] / "boards"
LANGS = ("pt-BR", "pt-PT", "it", "en")
UNSURE = 0.3
"""A typed line with this confidence is asked back by the host, as a recognizer's unsure result is."""


def board(edition: str, lang: str) -> Board:
    return Board.from_dict(json.loads((BOARDS / f"{edition}-{lang}.json").read_text(encoding="utf-8")))


class TypedTable(Table):
    """The players, their lines typed into the host. `typed(number, text)` is what the host gets of the
    players' `number`-th line (None: nothing, as a line the ears never heard); `unsure`: moves come with
    a recognizer's low confidence, so the host asks them back (answers are sure)."""

    def __init__(
        self, *args: object, typed: Callable[[int, str], str | None] | None = None, unsure: bool = False, **kw: object
    ) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.typed = typed or (lambda number, text: text)
        self.unsure = unsure

    def _line(self, seat: Seat, text: str, *, answer: bool = False) -> Iterator[Audio]:
        mark = len(self.heard.said)
        typed = self.typed(self.tally.lines, text)
        if typed is not None:
            self.host.hear(typed, None if answer or not self.unsure else UNSURE)
        self._reply = self.heard.said[mark:]
        yield from ()


def play(
    edition: str, lang: str, *, listening: ListenMode = ListenMode.OPEN, **settings: Any
) -> tuple[TypedTable, Host]:
    heard = Announcements()
    game = new_game(board(edition, lang), Variants())
    host = Host(game, Prompts.load(Lang.parse(lang)), heard, settings=HostSettings(listening=listening))
    host.start()
    table = TypedTable(host, heard, [find_voice("rhvoice:bdl")], cache_dir=default_cache(), **settings)
    for _ in table.play():
        pass
    return table, host


# ---- reading what the host says ---------------------------------------------------------------------


def _filled(template: str, cards: list[str]) -> str:
    """A template filled as the host would: cards where a card goes, a word or a number elsewhere."""
    values: dict[str, object] = {}
    for _, name, _, _ in string.Formatter().parse(template):
        if name:
            values[name] = cards[len(values) % len(cards)] if name in ("card", "first", "second", "third") else "7"
    return template.format(**values)


@pytest.mark.parametrize("lang", LANGS)
def test_every_question_is_read_with_what_it_names(lang: str) -> None:
    cards = list(board("classic", lang).cards)
    prompts = Prompts.load(Lang.parse(lang))
    reader = Reader(Lang.parse(lang), cards)
    values = {"card": cards[3], "first": cards[1], "second": cards[2], "third": cards[4], "place": "B3",
              "word": "tomate", "number": 3, "what": "passo", "Other": "X", "side": "A", "why": "", "detail": "x",
              "Team": "X", "seconds": 5}  # fmt: skip
    asked = [key for key in QUESTIONS if prompts.has(key)]
    assert len(asked) >= 12, "the prompt files lost most of the host's questions"
    for key in asked:
        said = f"{prompts.text('guess.retry')} {prompts.text(key, **values)}"  # after another sentence
        found = reader.question(said)
        assert found is not None and found.key == key, (key, said, found)
        if found.asked is Asked.CARDS:
            assert found.cards[0] in (cards[1], cards[3])
        if found.asked is Asked.CLUE:
            assert (found.fields["word"], found.fields["number"]) == ("tomate", "3")


@pytest.mark.parametrize("lang", LANGS)
def test_nothing_else_the_host_says_is_a_question(lang: str) -> None:
    cards = list(board("classic", lang).cards)
    reader = Reader(Lang.parse(lang), cards)
    keys = {tuple(key.split(".")) for key in QUESTIONS}
    for table, entries in prompt_file(Lang.parse(lang)).items():
        if table == "display":
            continue  # the pages' labels, never said
        for name, template in entries.items():
            if (table, name) in keys or not isinstance(template, str):
                continue
            said = _filled(template, cards)
            assert reader.question(said) is None, (f"{table}.{name}", said)


# ---- the players ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("edition", ["classic", "duet"])
def test_typed_every_move_costs_one_line(edition: str, lang: str) -> None:
    table, host = play(edition, lang)
    tally = table.tally
    assert tally.ended and tally.quit and host.finished, table.transcript[-6:]
    # one line a move, and an answer to Duet's "Who gives this clue, A or B?" when either player may
    asked = tally.questions_by[Kind.CLUE]
    assert asked == (1 if edition == "duet" and host.game.board.first_clue_giver is None else 0)
    assert tally.move_lines == tally.moves_done + asked, table.transcript
    assert (tally.done[Kind.CLUE], tally.done[Kind.GUESS]) == (7, 13)  # six turns of two cards, then the assassin
    assert tally.silences == 0 and tally.reprompts == 0 and not tally.lost and not tally.wrong
    assert host.game.events[-1]["reason"] == "assassin"


def test_the_addressed_way_says_the_hosts_name_before_each_move() -> None:
    table, _ = play("classic", "pt-BR", listening=ListenMode.ADDRESSED)
    moves = [line for line in table.transcript if ": " in line and not line.startswith(" ")][1:]
    assert moves and all(": apresentador, " in line or line.endswith(": sim") for line in moves), moves
    assert table.tally.move_lines == table.tally.moves_done


def test_questions_are_answered_truthfully() -> None:
    """Every move asked back ("SHERIFF?", "Clue: music, 2? Yes or no.", "Did you say: pass?"): yes, and
    the move is done; a pass heard as "pause" (no sand runs) is asked back as the pass it was: yes."""
    heard_as_pause = {"pass": "pause"}
    seen: set[str] = set()

    def typed(number: int, text: str) -> str:
        if text in heard_as_pause and text not in seen:
            seen.add(text)
            return heard_as_pause[text]
        return text

    table, _ = play("classic", "en", unsure=True, typed=typed)
    tally = table.tally
    assert tally.ended and tally.quit and not tally.wrong and not tally.lost
    assert tally.questions >= tally.moves_done  # every move was asked back once
    transcript = "\n".join(table.transcript)
    asked = Prompts.load(Lang.EN).text
    assert asked("input.confirm_command", what="pause") not in transcript
    assert f"host: {asked('timer.not_running')}" not in transcript  # nothing to pause: the question says it all
    assert f"host: {asked('input.confirm_command', what='pass')}\nblue operatives: yes" in transcript
    assert f"host: {asked('guess.confirm_one', card='SHERIFF')}\nblue operatives: yes" in transcript


def test_a_move_met_with_silence_is_said_again() -> None:
    """The first saying of every move (not of an answer) never reaches the host: the same line again."""
    said: set[str] = set()

    def typed(number: int, text: str) -> str | None:
        if text in said or text in ("sì", "no"):
            return text
        said.add(text)
        return None

    table, _ = play("classic", "it", typed=typed)
    tally = table.tally
    assert tally.ended and tally.quit and not tally.wrong and not tally.lost
    assert tally.silences == len(said)
    assert tally.lines == tally.moves_done + len(said) + 1  # and the goodbye (the game over, it asks nothing)
    for before, silence, after in zip(table.transcript, table.transcript[1:], table.transcript[2:], strict=False):
        if silence == "  (silence)":  # the same move; a card after a lead-in said plainly
            card = before.split()[-1]
            assert after in (before, f"{before.split(':')[0]}: {card}"), (before, after)


def test_a_card_revealed_that_nobody_meant_is_taken_back_by_voice() -> None:
    wrong_card = "DRUMMER"  # a bystander of the English test board

    misheard: list[str] = []

    def typed(number: int, text: str) -> str:
        if text == "reindeer" and not misheard:
            misheard.append(text)
            return wrong_card.lower()
        return text

    table, host = play("classic", "en", typed=typed)
    tally = table.tally
    assert [(wrong.kind, wrong.happened, wrong.undone) for wrong in tally.wrong] == [("reveal", "guess DRUMMER", True)]
    assert tally.done[Kind.UNDO] == 1 and tally.ended and tally.quit
    assert "blue operatives: undo that" in table.transcript
    assert wrong_card in host.game.visible_cards()


def test_an_undo_heard_late_is_answered_yes_by_the_table_that_wanted_it() -> None:
    """The operatives' "undo that" after a card nobody meant is never heard; the host hears an undo in the
    next line instead (another player's clue) and asks "Undo the last guess, DRUMMER?": the table wanted
    DRUMMER back, so it says yes whatever move it was on, and the game goes on from before the card."""
    wrong_card = "DRUMMER"
    late: list[str] = []

    def typed(number: int, text: str) -> str | None:
        if text == "reindeer" and not late:
            late.append("misheard")
            return wrong_card.lower()
        if text == "undo that":
            return None
        if late == ["misheard"] and text not in ("yes", "no"):
            late.append(text)
            return "undo that"
        return text

    table, host = play("classic", "en", typed=typed)
    tally = table.tally
    assert len(late) == 2, late  # the line after the missed undos was heard as one
    assert [(wrong.kind, wrong.happened, wrong.undone) for wrong in tally.wrong] == [("reveal", "guess DRUMMER", True)]
    asked = Prompts.load(Lang.EN).text("undo.confirm", card=wrong_card)
    answers = [after for line, after in itertools.pairwise(table.transcript) if line.endswith(asked)]
    assert answers and all(answer.endswith(": yes") for answer in answers), answers
    assert tally.ended and tally.quit
    assert wrong_card in host.game.visible_cards()


def _once(misheard: dict[str, str | None]) -> Callable[[int, str], str | None]:
    """What the host gets of each line: the first saying of each line in `misheard` heard as given there
    (None: not heard at all), everything else as said."""
    seen: set[str] = set()

    def typed(number: int, text: str) -> str | None:
        if text in misheard and text not in seen:
            seen.add(text)
            return misheard[text]
        return text

    return typed


@pytest.mark.parametrize(("lang", "clue", "word", "number"), [("en", "music, two", "music", "two"),
                                                              ("pt-BR", "música, dois", "música", "dois")])  # fmt: skip
def test_a_clue_word_heard_alone_is_given_its_number(lang: str, clue: str, word: str, number: str) -> None:
    """The host hears the word without its number and asks "music: how many?": the spymaster says the
    number, and the clue is done with no other line."""
    table, host = play("classic", lang, typed=_once({clue: word}))
    tally = table.tally
    assert tally.ended and tally.quit and not tally.wrong and not tally.lost
    asked = Prompts.load(Lang.parse(lang)).text("clue.ask_number", word=word)
    spymaster = table.transcript[0].split(":")[0]
    assert table.transcript[:4] == [f"{spymaster}: {clue}", f"  host: {asked}", f"{spymaster}: {number}",
                                    table.transcript[3]], table.transcript[:4]  # fmt: skip
    assert tally.questions_by[Kind.CLUE] == 1 and tally.move_lines == tally.moves_done + 1
    first = next(event for event in host.game.events if event.type.value == "clue")
    assert (first["word"], first["number"]) == (word, 2)


def test_a_move_met_with_sorry_is_said_again() -> None:
    """ "Sorry?" (input.sorry) asks nothing the players could answer: they say the move again."""
    table, _ = play("classic", "en", typed=_once({"sheriff": "zebrafish"}))
    tally = table.tally
    assert tally.ended and tally.quit and not tally.wrong and not tally.lost
    sorry = Prompts.load(Lang.EN).text("input.sorry")
    at = table.transcript.index(f"  host: {sorry}")
    assert table.transcript[at - 1] == table.transcript[at + 1] == "blue operatives: sheriff"
    assert tally.reprompts == 1 and tally.questions_by[Kind.GUESS] == 0


def test_a_clue_heard_wrongly_is_corrected_by_voice() -> None:
    """ "music, three" taken for "music, two": the spymaster's next line puts it right, as the first thing
    said after it ("no, the clue is music, two"); no guess was made on the wrong one."""
    table, host = play("classic", "en", typed=_once({"music, two": "music, three"}))
    tally = table.tally
    assert [(wrong.kind, wrong.happened, wrong.undone) for wrong in tally.wrong] == [("clue", "clue music 3", True)]
    assert table.transcript[2] == "blue spymaster: no, the clue is music, two"
    assert tally.done[Kind.CORRECT] == 1 and tally.ended and tally.quit and not tally.lost
    kinds = [event.type.value for event in host.game.events[:5]]
    assert kinds == ["game_started", "clue", "undo", "clue", "guess"]


def test_a_clue_heard_wrongly_is_undone_when_the_correction_is_not_heard() -> None:
    """The correction garbled (the host hears talk): it can no longer correct, so "undo that", "yes" to
    "Undo the clue music, 3?", and the clue said again."""
    garbled = {"music, two": "music, three", "no, the clue is music, two": "blah blah blah"}
    table, host = play("classic", "en", typed=_once(garbled))
    tally = table.tally
    assert [(wrong.kind, wrong.undone) for wrong in tally.wrong] == [("clue", True)]
    asked = Prompts.load(Lang.EN).text("undo.confirm_clue", word="music", number=3)
    assert f"  host: {asked}" in table.transcript
    assert tally.done[Kind.UNDO] == 1 and tally.ended and tally.quit and not tally.lost
    clues = [(event["word"], event["number"]) for event in host.game.events if event.type.value == "clue"]
    assert clues[:2] == [("music", 3), ("music", 2)]


# ---- the promises a game by voice keeps (tests/test_voice_games.py) --------------------------------------


def test_a_game_the_table_could_play_keeps_every_promise() -> None:
    table, _ = play("classic", "en", unsure=True, typed=_once({"music, two": "music", "sheriff": "zebrafish"}))
    assert broken_promises(table.tally) == []


@pytest.mark.parametrize(
    ("broken", "typed", "unsure"),
    [
        ("cards revealed", lambda number, text: "drummer" if text in ("reindeer", "sheriff") else text, False),
        ("moves never heard", lambda number, text: None if text in ("pretzel", "sponge", "sheriff") else text, False),
        ("questions for", lambda number, text: "quit" if text == "pass" and number % 2 else text, True),
    ],
    ids=["reveals-what-nobody-said", "deaf-to-three-cards", "asks-twice"],
)
def test_a_host_the_table_cannot_play_with_breaks_a_promise(
    broken: str, typed: Callable[[int, str], str | None], unsure: bool
) -> None:
    """Hosts that hear wrong (a card revealed for another, again and again), that never hear some cards,
    or that ask more than once a move: the voice games' checks fail on each."""
    table, _ = play("classic", "en", typed=typed, unsure=unsure)
    assert any(broken in promise for promise in broken_promises(table.tally)), table.transcript


# ---- the reply's delay ----------------------------------------------------------------------------------


def test_the_reply_delay_is_rebuilt_in_real_time() -> None:
    """Speech ends at 2.0 s; the VAD's pause starts recognition, which takes 0.5 s of compute (started
    at the pause, while the stream was read fast); the host takes 0.05 s more: the table waits the
    pause, the recognition and the host's time, not the fast wall clock."""
    clock = ReplyClock()
    vad_end = 2.05
    for step in range(40):  # the stream read ten times faster than real time, from wall time 100
        clock.pulled(0.1 * (step + 1), 100 + 0.01 * step)
    pause_wall = 100 + 0.01 * 20  # the chunk holding vad_end + the pause was taken then
    clock.called(pause_wall, pause_wall + 0.5)
    clock.handed(Heard("cherry", end_s=vad_end), at=pause_wall + 0.5)
    delay = clock.reply_ms(2.0, pause_wall + 0.55)
    expected = 1000 * (vad_end + max(PAUSE_MS / 1000 + 0.5, END_SILENCE_MS / 1000) + 0.05 - 2.0)
    assert delay == pytest.approx(expected)
