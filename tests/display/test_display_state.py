"""The public view of each edition, the texts built from it, the terminal display and the QR codes."""

from __future__ import annotations

import io
import json
import re

import pytest
import segno

from engine.board import Board
from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.editions import new_game
from engine.lang import Lang
from engine.pieces import Edition, Identity, Side, Team
from engine.variants import Variants
from tests.display_demo import deal, finished, mid_game
from voicehost.display import NoDisplay, TerminalDisplay, make_display, public_state
from voicehost.display.qr import QUIET_ZONE, qr_lines
from voicehost.display.snapshot import encode, key_part, key_payload, public_payload
from voicehost.display.texts import texts
from voicehost.prompts import Prompts

EN = Prompts.load(Lang.EN)


def cards_of(board: Board, key: tuple[Identity, ...], identity: Identity) -> list[str]:
    return [card for card, found in zip(board.cards, key, strict=True) if found is identity]


def test_fresh_classic_shows_words_and_nothing_of_the_key() -> None:
    game = new_game(deal(Edition.CLASSIC))
    view = public_state(game)
    assert (view["edition"], view["columns"], view["rows"], view["phase"]) == ("classic", 5, 5, "clue")
    assert [card["name"] for card in view["cards"]] == list(game.board.cards)
    assert all(not card["covered"] and card["identity"] is None and card["emoji"] is None for card in view["cards"])
    assert view["competitive"]["team"] == game.board.starting_team
    assert view["competitive"]["agents_left"] == {team.value: game.agents_left(team) for team in Team}
    for identity in ("red", "blue", "bystander", "assassin"):
        assert f'"{identity}"' not in json.dumps(view["cards"])


@pytest.mark.parametrize("edition", [Edition.CLASSIC, Edition.PICTURES])
def test_competitive_covered_cards_show_their_identity_only(edition: Edition) -> None:
    game, _ = mid_game(edition)
    assert isinstance(game, CompetitiveGame)
    view = public_state(game)
    for index, card in enumerate(view["cards"]):
        if index in game.state.revealed:
            assert card["covered"] and card["identity"] == game.board.key[index].value
        else:
            assert not card["covered"] and card["identity"] is None
    assert view["clue"]["number"] == 3 and view["competitive"]["guesses_left"] == 3
    words = texts(view, EN)
    assert words["turn"] == f"{game.team.value.capitalize()} operatives, your guess."
    assert words["guesses"] == "Guesses left: 3."
    assert [item["kind"] for item in words["counters"]] == [game.players_team.value, game.players_team.other.value]


def test_pictures_carry_their_emoji_and_name() -> None:
    view = public_state(new_game(deal(Edition.PICTURES, Lang.IT)))
    assert (view["columns"], view["rows"]) == (5, 4)
    assert all(card["emoji"] for card in view["cards"])
    assert all(card["name"].isupper() for card in view["cards"])


def test_duet_one_side_mark_is_public_but_not_the_other_side() -> None:
    game, _ = mid_game(Edition.DUET)
    assert isinstance(game, DuetGame)
    view = public_state(game)
    marked = [card for card in view["cards"] if card["marks"]]
    assert len(marked) == 1 and marked[0]["marks"] == ["a"] and not marked[0]["covered"]
    assert marked[0]["identity"] is None
    greens = [card for card in view["cards"] if card["covered"]]
    assert len(greens) == 4 and all(card["identity"] == "green" for card in greens)
    duet = view["duet"]
    assert (duet["tokens_left"], duet["tokens_total"], duet["greens_found"], duet["guesser"]) == (7, 9, 4, "b")
    assert duet["mistakes_left"] is None
    label = texts(view, EN)["cards"][view["cards"].index(marked[0])]["label"]
    assert label.endswith("not guessed yet, bystander for player A")


def test_duet_bystander_from_both_sides_is_covered() -> None:
    board = deal(Edition.DUET)
    game = new_game(board)
    assert isinstance(game, DuetGame)
    both = next(i for i in range(25) if board.key_a[i] is board.key_b[i] is Identity.BYSTANDER)
    name = board.cards[both]
    game.give_clue("ONE", 1, by=Side.A)
    game.guess(name)  # B guesses, judged on A: a bystander
    game.give_clue("TWO", 1, by=Side.B)
    game.guess(name)  # A guesses, judged on B: a bystander again
    card = public_state(game)["cards"][both]
    assert card["covered"] and card["identity"] == "bystander" and card["marks"] == ["a", "b"]


def test_duet_assassin_that_ended_the_game_is_shown() -> None:
    board = deal(Edition.DUET)
    game = new_game(board, Variants(mission="cairo"))
    assert isinstance(game, DuetGame)
    assassin = board.cards[board.key_a.index(Identity.ASSASSIN)]
    game.give_clue("ONE", 1, by=Side.A)
    game.guess(assassin)
    view = public_state(game)
    card = next(card for card in view["cards"] if card["name"] == assassin)
    assert card["covered"] and card["identity"] == "assassin"
    assert sum(card["covered"] for card in view["cards"]) == 1
    assert view["duet"]["mission"] == "Cairo" and view["duet"]["mistakes_left"] == 5
    words = texts(view, EN)
    assert words["turn"] == "Game over." and words["result"] == "Assassin! You both lose."


def test_competitive_end_texts() -> None:
    game = new_game(deal(Edition.CLASSIC))
    assert isinstance(game, CompetitiveGame)
    team = game.team
    game.give_clue("ANY", 9)
    for card in cards_of(game.board, game.board.key, Identity.of_team(team)):
        game.guess(card)
    view = public_state(game)
    assert view["over"] and view["winner"] == team.value
    assert (
        texts(view, EN)["result"]
        == f"All {team.value.capitalize()} agents are found. {team.value.capitalize()} team wins!"
    )


@pytest.mark.parametrize("edition", list(Edition))
def test_the_whole_key_is_public_once_the_game_is_over_and_not_before(edition: Edition) -> None:
    game, _ = mid_game(edition)
    assert public_state(game)["reveal"] is None
    assert all(not card["reveal"] for card in texts(public_state(game), EN)["cards"])
    game, _ = finished(edition)
    view = public_state(game)
    assert view["reveal"] == {holder: [i.value for i in game.key_for(holder)] for holder in game.KEY_HOLDERS}
    shown = texts(view, EN)["cards"]
    for index, card in enumerate(shown):
        if game.TEAMS:
            identity = game.board.key[index].value
            expected = [] if game.is_covered(index) else [identity]
            assert bool(card["reveal"]) is not game.is_covered(index)
        else:
            expected = [game.board.key_a[index].value, game.board.key_b[index].value]
            assert [item["side"] for item in card["reveal"]] == ["A", "B"]
        assert [item["identity"] for item in card["reveal"]] == expected
        assert all(item["said"] in card["label"] for item in card["reveal"])


LEFT = {
    Lang.EN: ("left", "left"),
    Lang.PT_BR: ("faltam", "falta"),
    Lang.PT_PT: ("faltam", "falta"),
    Lang.IT: ("mancano", "manca"),
}
"""The word that says *left*, for several and for one, in each language."""


@pytest.mark.parametrize("lang", list(Lang))
def test_counts_say_what_is_left_in_every_language(lang: Lang) -> None:
    """'Red: 5 of 9' meant left but read as found: every count now says left, and gives no total to misread."""
    prompts = Prompts.load(lang)
    game = new_game(deal(Edition.CLASSIC, lang))
    assert isinstance(game, CompetitiveGame)
    team = game.team
    game.give_clue("ANY", 9)
    for card in cards_of(game.board, game.board.key, Identity.of_team(team))[:-1]:
        game.guess(card)  # one agent left for the team playing
    counters = {item["kind"]: item["text"] for item in texts(public_state(game), prompts)["counters"]}
    many, one = LEFT[lang]
    assert counters[team.value].endswith(f"{one} 1" if lang is not Lang.EN else "1 left"), counters
    other = counters[team.other.value]
    assert many in other.split() and str(game.agents_left(team.other)) in other.split(), other
    assert re.findall(r"\d+", other) == [str(game.agents_left(team.other))], "no total beside it to misread"
    duet, _ = mid_game(Edition.DUET, lang)
    greens = next(item["text"] for item in texts(public_state(duet), prompts)["counters"] if item["kind"] == "green")
    assert greens.endswith(f": {15 - len(duet.state.greens)}"), greens
    assert prompts.text("display.greens_left", left="").split()[-1].rstrip(":") in greens


def test_key_payload_adds_the_key_on_top_of_the_public_snapshot() -> None:
    game, said = mid_game(Edition.DUET)
    view = public_state(game)
    public = public_payload(view, texts(view, EN), {"n": 1, "text": said}, None)
    private = key_payload(public, key_part(view, game, "b", EN))
    assert private["key"]["identities"] == [identity.value for identity in game.board.key_b]
    assert {name: value for name, value in private.items() if name != "key"} == public
    assert private["key"]["title"] == "Codenames Duet – the key of player B"
    first = private["key"]["cards"][0]["label"]
    assert first.startswith(game.board.cards[0]) and "key: " in first


def test_encoding_is_canonical() -> None:
    game, said = mid_game(Edition.CLASSIC)
    view = public_state(game)
    payload = public_payload(view, texts(view, EN), {"n": 1, "text": said}, {"seconds": 3, "running": True})
    assert encode(payload) == encode(json.loads(encode(payload)))
    assert b"\n" not in encode(payload)


@pytest.mark.parametrize("lang", list(Lang))
def test_texts_in_every_language(lang: Lang) -> None:
    prompts = Prompts.load(lang)
    for edition in Edition:
        game, _ = mid_game(edition, lang)
        words = texts(public_state(game), prompts)
        assert words["turn"] and words["clue"] and words["counters"]
        assert all(card["label"] for card in words["cards"])


def test_terminal_display_prints_the_grid_once_per_change() -> None:
    out = io.StringIO()
    game, _ = mid_game(Edition.CLASSIC)
    display = make_display("terminal", game, EN, stream=out)
    assert isinstance(display, TerminalDisplay)
    display.show(game)  # nothing changed: nothing printed again
    display.said("ignored")
    display.timer(10, True)
    text = out.getvalue()
    assert text.count("== Codenames ==") == 1
    assert len([line for line in text.splitlines() if "[R]" in line or "[B]" in line or "[I]" in line]) >= 2
    for index, card in enumerate(game.board.cards):
        assert card in text
        if game.is_covered(index):
            letter = {"red": "R", "blue": "B", "bystander": "I", "assassin": "X"}[game.board.key[index].value]
            assert f"[{letter}] {card}" in text
    assert display.console_lines() == []
    display.close()


def test_terminal_shows_the_key_when_the_game_is_over() -> None:
    game, _ = finished(Edition.CLASSIC)
    out = io.StringIO()
    TerminalDisplay(EN, out).show(game)
    for index, card in enumerate(game.board.cards):
        letter = EN.text(f"display.letter_{game.board.key[index].value}")
        assert (f"[{letter}] {card}" if game.is_covered(index) else f"{{{letter}}} {card}") in out.getvalue()
    game, _ = mid_game(Edition.CLASSIC)
    out = io.StringIO()
    TerminalDisplay(EN, out).show(game)
    assert "{" not in out.getvalue()


def test_terminal_duet_marks() -> None:
    out = io.StringIO()
    game, _ = mid_game(Edition.DUET)
    TerminalDisplay(EN, out).show(game)
    assert "(A) " in out.getvalue() and "[G] " in out.getvalue()


def test_none_and_unknown_kinds() -> None:
    game, _ = mid_game(Edition.CLASSIC)
    display = make_display("none", game, EN)
    assert isinstance(display, NoDisplay)
    display.show(game)
    display.said("x")
    display.timer(None, False)
    assert display.console_lines() == []
    display.close()
    with pytest.raises(ValueError, match="unknown display"):
        make_display("hologram", game, EN)


def test_qr_lines_decode_back_to_the_code() -> None:
    url = "http://192.168.1.20:8080/key/abcdefghijklmnopqrstuvwx"
    lines = qr_lines(url)
    assert all(set(line) <= {" ", "▀", "▄", "█"} for line in lines)
    top = {" ": False, "▀": True, "▄": False, "█": True}
    bottom = {" ": False, "▀": False, "▄": True, "█": True}
    light = [row for line in lines for row in ([top[c] for c in line], [bottom[c] for c in line])]
    expected = [[not dark for dark in row] for row in segno.make(url, error="m").matrix_iter(border=QUIET_ZONE)]
    assert light[: len(expected)] == expected
