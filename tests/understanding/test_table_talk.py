"""Table talk: the host stays silent on discussion and acts only on moves, in both ways of playing.

Every line of tests/data/table_talk/<lang>.txt (operatives arguing, naming visible cards inside
negations, questions and hedges) is said to a host waiting for a clue, waiting for guesses, and
waiting for the answer to a question it asked: nothing may be said back, no event may happen, and a
pending question stays pending. The addressed way of playing is checked move by move (the host's
name first, or a commit phrase after), with its one hint, its spoken switch and a name of the
players' own; turn-taking by form holds in the open way too. By voice: tests/voice/test_table_talk_voice.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.board import Board
from engine.editions import AnyGame, new_game
from engine.events import EventType
from engine.game import Phase
from engine.lang import Lang
from engine.variants import Variants
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings
from voicehost.referee.questions import ConfirmGuess
from voicehost.understanding.moment import ListenMode
from voicehost.understanding.talk import form_of, spoken_host_name

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("pt-BR", "pt-PT", "it", "en")
CLUES = {"pt-BR": "música, dois", "pt-PT": "música, dois", "it": "musica, due", "en": "music, two"}
HEDGES = {"pt-BR": "talvez {card}", "pt-PT": "se calhar {card}", "it": "forse {card}", "en": "maybe the {card}"}
YES = {"pt-BR": "sim", "pt-PT": "sim", "it": "sì", "en": "yes"}


class Said:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def say(self, text: str) -> None:
        self.lines.append(text)


def talk(lang: str) -> list[str]:
    path = ROOT / "tests" / "data" / "table_talk" / f"{lang}.txt"
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def table(lang: str, listening: ListenMode, host_name: str = "") -> tuple[Host, Said, AnyGame]:
    data = json.loads((ROOT / "tests" / "boards" / f"classic-{lang}.json").read_text(encoding="utf-8"))
    game = new_game(Board.from_dict(data), Variants())
    said = Said()
    host = Host(
        game, Prompts.load(game.board.lang), said, settings=HostSettings(listening=listening, host_name=host_name)
    )
    host.start()
    return host, said, game


def addressed(lang: str, line: str) -> str:
    return f"{spoken_host_name(Lang.parse(lang))}, {line}"


def guessed(game: AnyGame) -> list[str]:
    return [event["card"] for event in game.events if event.type is EventType.GUESS]


def silent_through(host: Host, said: Said, game: AnyGame, lines: list[str]) -> None:
    """Every line heard, and nothing said or done."""
    before_lines, before_events, question = len(said.lines), len(game.events), host.question
    for line in lines:
        host.hear(line)
        assert said.lines[before_lines:] == [], f"the host answered table talk {line!r}"
        assert len(game.events) == before_events, f"table talk {line!r} changed the game"
        assert host.question is question, f"table talk {line!r} changed the question"


def test_the_corpus_is_what_its_readme_says() -> None:
    for lang in LANGS:
        lines = talk(lang)
        assert len(lines) >= 40, lang
        cards = json.loads((ROOT / "tests" / "boards" / f"classic-{lang}.json").read_text(encoding="utf-8"))["cards"]
        for line in lines:
            assert any(card.lower() in line for card in cards), f"{lang}: {line!r} names no card"


@pytest.mark.parametrize("listening", list(ListenMode), ids=lambda listening: listening.value)
@pytest.mark.parametrize("lang", LANGS)
def test_talk_gets_silence_whatever_the_host_waits_for(lang: str, listening: ListenMode) -> None:
    host, said, game = table(lang, listening)
    lines = talk(lang)
    silent_through(host, said, game, lines)  # a clue is awaited
    host.hear(addressed(lang, CLUES[lang]))
    assert game.state.phase is Phase.GUESS
    silent_through(host, said, game, lines)  # guesses are awaited
    card = game.visible_cards()[0]
    host.hear(addressed(lang, HEDGES[lang].format(card=card.lower())))  # said to the host, hedged: asked back
    assert isinstance(host.question, ConfirmGuess) and host.question.candidates == (card,)
    asked, count = said.lines[-1], len(said.lines)
    host.hear(lines[0])  # an answer is awaited: talk does not answer it, and the question is asked again, once
    assert said.lines[count:] == [asked] and guessed(game) == []
    silent_through(host, said, game, lines)
    host.hear(YES[lang])  # the answer needs no name: the host has just asked
    assert guessed(game) == [card]


@pytest.mark.parametrize("lang", LANGS)
def test_every_talk_line_has_the_form_of_talk(lang: str) -> None:
    for line in talk(lang):
        form = form_of(line, Lang.parse(lang))
        assert form.talk and not form.addressed, line


def test_the_addressed_way_acts_only_on_moves_said_to_the_host() -> None:
    host, said, game = table("en", ListenMode.ADDRESSED)
    host.hear("music, two")  # a clue not said to the host: one hint, nothing done
    assert [e.type for e in game.events] == [EventType.GAME_STARTED]
    assert said.lines[-1] == host.t("listen.hint", name="host")
    count = len(said.lines)
    host.hear("music, two")  # the hint is said once a game
    assert len(said.lines) == count
    host.hear("okay host, music, two")
    assert game.events[-1].type is EventType.CLUE
    host.hear("walrus")  # a lone card not said to the host: nothing
    assert game.events[-1].type is EventType.CLUE
    host.hear("walrus, final answer")  # a commit phrase after it: the move is said to the host
    assert guessed(game) == ["WALRUS"]
    host.hear("what's the score?")  # a question that only reads the game needs no name
    assert said.lines[-1] == host.announce.score_text()
    events = len(game.events)
    host.hear("pass")  # ending the turn is no question: it needs the name
    assert len(game.events) == events


def test_the_way_of_playing_is_switched_by_voice() -> None:
    host, said, game = table("pt-BR", ListenMode.ADDRESSED)
    host.hear("modo aberto")  # switching to the open way changes what counts: it must be said to the host
    assert host.listening is ListenMode.ADDRESSED
    host.hear("anfitrião, modo aberto")
    assert said.lines[-1] == host.t("listen.open")
    host.hear("música, dois")
    assert game.events[-1].type is EventType.CLUE
    host.hear("só quando te chamarem")  # back to the addressed way: safe, needs no name
    assert host.listening is ListenMode.ADDRESSED
    assert said.lines[-1] == host.t("listen.addressed", name="apresentador")
    host.hear("gravata")
    assert game.events[-1].type is EventType.CLUE


def test_a_name_the_players_chose() -> None:
    host, said, game = table("it", ListenMode.ADDRESSED, host_name="Zeno")
    host.hear("musica, due")
    assert said.lines[-1] == host.t("listen.hint", name="Zeno")  # the hint names the players' name
    host.hear("Zeno, musica, due")
    assert game.events[-1].type is EventType.CLUE
    host.hear("arbitro, razzo")  # the vocabulary's names still work
    assert guessed(game) == ["RAZZO"]


@pytest.mark.parametrize("listening", list(ListenMode), ids=lambda listening: listening.value)
def test_turn_taking_by_form(listening: ListenMode) -> None:
    host, said, game = table("en", listening)
    count = len(said.lines)
    host.hear("walrus")  # a lone card while the spymaster thinks: an operative ahead of time, no reply
    host.hear("the walrus")
    assert len(said.lines) == count and len(game.events) == 1
    host.hear("host, walrus")  # said to the host, it gets the answer a card gets now
    assert len(said.lines) == count + 1 and len(game.events) == 1
    host.hear("host, music, two")
    assert game.events[-1].type is EventType.CLUE
    count = len(said.lines)
    host.hear("ocean, three")  # a clue-shaped line while the operatives guess: no reply
    assert len(said.lines) == count and game.events[-1].type is EventType.CLUE
    host.hear("host, ocean, three")
    assert said.lines[-1] == host.t("clue.need_guess_now")


def test_the_open_way_acts_on_moves_by_their_form() -> None:
    host, said, game = table("en", ListenMode.OPEN)
    host.hear("music, two")
    assert game.events[-1].type is EventType.CLUE
    host.hear("I think it's the walrus")
    assert guessed(game) == ["WALRUS"]
    count = len(said.lines)
    host.hear("blah blah blorp")  # not a move, not said to the host: nobody waits for an answer
    assert len(said.lines) == count
    host.hear("host, blah blah blorp")  # said to the host: it says it did not understand
    assert said.lines[-1] == host.t("input.reprompt_guess")


def test_a_name_the_transcript_left_out_counts_when_the_ears_heard_it() -> None:
    """ "Host, cherry" transcribed "cherry": the ears' `name_gain` (how much better the audio is explained
    with the name said first) decides, at the calibrated point; below it the card is only talk."""
    from voicehost.decision import calibration
    from voicehost.ears.heard import Heard

    host, _, game = table("en", ListenMode.ADDRESSED)
    host.hear(addressed("en", CLUES["en"]))
    assert host.moment().names == ("host",)
    card = game.visible_cards()[0]
    point = calibration().name_gain
    host.hear(Heard(card.lower(), 0.95, name_gain=point - 1.0))  # a card merely mentioned
    assert guessed(game) == []
    host.hear(Heard(card.lower(), 0.95, name_gain=point + 1.0))
    assert guessed(game) == [card]
    open_host, _, _ = table("en", ListenMode.OPEN)
    assert open_host.moment().names == ()  # in the open way nobody needs to be named


def test_where_no_clue_can_be_given_a_number_is_a_word_of_the_line() -> None:
    """While the operatives guess a clue-shaped line is weighed as a guess: "I mean it could be the thung
    dispunge for." ("for" heard as 4) is talk then, "trovão dois" is not."""
    from voicehost.understanding.talk import form_of

    line = "I mean it could be the thung dispunge for."
    assert not form_of(line, Lang.EN).talk and form_of(line, Lang.EN, clue_shapes=False).talk
    assert not form_of("trovão dois", Lang.PT_BR, clue_shapes=False).talk
