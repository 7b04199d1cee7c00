"""Noninterference: two boards whose keys differ only where nobody may look serve the same public bytes.

The same actions are played on both boards (so every covered card and every announcement is the
same); what differs is the identity of cards still uncovered and, in Duet, the hidden side of a card
marked or found from the other side. After each action, every public address (page, scripts, styles,
state, error pages, headers) and the next message of an open event stream must be byte-identical,
until the game is over. Then the table turns the key card over: each public snapshot shows its own
board's whole key (`view.reveal`), and apart from that key and the texts drawn from it, the two are
still the same.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import replace

import pytest

from engine.board import Board
from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.editions import AnyGame, new_game
from engine.events import Event
from engine.lang import Lang
from engine.pieces import Edition, Identity, Side
from tests.display_demo import deal
from tests.display_support import PUBLIC_PATHS, EventStream, raw_get
from voicehost.display.texts import texts
from voicehost.display.web import WebDisplay
from voicehost.prompts import Prompts
from voicehost.referee.announcer import announcer_for

Action = Callable[[AnyGame], list[Event]]


def own(team_of: Callable[[CompetitiveGame], Identity], board: Board) -> Action:
    """Guess the first uncovered card that is `team_of(game)` on `board` (the first board: names are shared)."""

    def act(game: AnyGame) -> list[Event]:
        assert isinstance(game, CompetitiveGame)
        wanted = team_of(game)
        return game.guess(
            next(c for i, c in enumerate(board.cards) if board.key[i] is wanted and not game.is_covered(i))
        )

    return act


def competitive_script(board: Board) -> list[Action]:
    mine = lambda g: Identity.of_team(g.team)  # noqa: E731
    theirs = lambda g: Identity.of_team(g.team.other)  # noqa: E731
    bystander = lambda g: Identity.BYSTANDER  # noqa: E731
    assassin = lambda g: Identity.ASSASSIN  # noqa: E731
    return [
        lambda g: g.give_clue("ALPHA", 2),  # type: ignore[call-arg]
        own(mine, board),
        own(mine, board),
        lambda g: g.end_turn(),
        lambda g: g.give_clue("BRAVO", 1),  # type: ignore[call-arg]
        own(theirs, board),  # the other team's agent: the turn passes
        lambda g: g.give_clue("CHARLIE", 0),  # type: ignore[call-arg]
        own(mine, board),
        own(bystander, board),
        lambda g: g.give_clue("DELTA", 4),  # type: ignore[call-arg]
        own(assassin, board),  # the game ends: still, nothing uncovered may show
    ]


def duet_script(board: Board) -> list[Action]:
    def guess(judge: Side, identity: Identity, other: Identity | None = None) -> Action:
        def act(game: AnyGame) -> list[Event]:
            assert isinstance(game, DuetGame)
            key, other_key = board.side_key(judge), board.side_key(judge.other)
            for index, card in enumerate(board.cards):
                if game.is_covered(index) or judge in game.state.marks.get(index, set()):
                    continue
                if key[index] is identity and (other is None or other_key[index] is other):
                    return game.guess(card)
            raise AssertionError("no such card")

        return act

    return [
        lambda g: g.give_clue("ALPHA", 2, by=Side.A),  # type: ignore[call-arg]
        guess(Side.A, Identity.GREEN, Identity.BYSTANDER),  # found green; its B side stays hidden
        guess(Side.A, Identity.BYSTANDER, Identity.GREEN),  # marked from A only: its B side stays hidden
        lambda g: g.give_clue("BRAVO", 1, by=Side.B),  # type: ignore[call-arg]
        guess(Side.B, Identity.GREEN, Identity.GREEN),
        guess(Side.B, Identity.BYSTANDER, Identity.BYSTANDER),  # marked from B
        lambda g: g.give_clue("CHARLIE", 1, by=Side.A),  # type: ignore[call-arg]
        guess(Side.A, Identity.BYSTANDER, Identity.BYSTANDER),  # the same card, now from A too: covered
        lambda g: g.give_clue("DELTA", 3, by=Side.B),  # type: ignore[call-arg]
        guess(Side.B, Identity.ASSASSIN),  # the game ends on B's assassin
    ]


def play(board: Board, script: list[Action]) -> AnyGame:
    game = new_game(board)
    for action in script:
        action(game)
    return game


def known(game: AnyGame, index: int) -> dict[str, Identity]:
    """What the table knows of a card at the end: {"key" | side: identity}; empty when nothing."""
    if isinstance(game, CompetitiveGame):
        return {"key": game.board.key[index]} if game.is_covered(index) else {}
    facts: dict[str, Identity] = {}
    for event in game.events:
        if event.type.value == "guess" and game.board.index_of(event["card"]) == index:
            facts[Side(event["by"]).other.value] = Identity(event["identity"])
    for side in game.state.marks.get(index, set()):
        facts[side.value] = Identity.BYSTANDER
    return facts


def hidden_twin(board: Board, game: AnyGame, seed: int) -> Board:
    """Another board with the same public facts: identities moved only between compatible cards."""
    rng = random.Random(seed)
    if isinstance(game, CompetitiveGame):
        free = [i for i in range(len(board.cards)) if not known(game, i)]
        key = list(board.key)
        moved = [key[i] for i in free]
        while [key[i] for i in free] == moved:
            rng.shuffle(moved)
        for i, identity in zip(free, moved, strict=True):
            key[i] = identity
        return replace(board, key=tuple(key))
    pairs = list(zip(board.key_a, board.key_b, strict=True))
    facts = [known(game, i) for i in range(len(pairs))]

    def fits(index: int, pair: tuple[Identity, Identity]) -> bool:
        return all(pair[0 if side == "a" else 1] is identity for side, identity in facts[index].items())

    def swap(i: int, j: int) -> bool:
        if pairs[i] == pairs[j] or not fits(i, pairs[j]) or not fits(j, pairs[i]):
            return False
        pairs[i], pairs[j] = pairs[j], pairs[i]
        return True

    for _ in range(2000):
        swap(*rng.sample(range(len(pairs)), 2))
    original = list(zip(board.key_a, board.key_b, strict=True))
    for i in range(len(pairs)):  # a card known from one side only: make its hidden side differ
        if len(facts[i]) == 1 and pairs[i] == original[i]:
            partners = [j for j in range(len(pairs)) if j != i and not facts[j]]
            assert any(swap(i, j) for j in partners), f"card {i} cannot differ"
    return replace(board, key_a=tuple(a for a, _ in pairs), key_b=tuple(b for _, b in pairs))


def whole_key(board: Board) -> dict[str, list[str]]:
    """What the public page shows once the game is over: the key card, turned over."""
    if board.is_duet:
        return {"a": [i.value for i in board.key_a], "b": [i.value for i in board.key_b]}
    return {"spymasters": [i.value for i in board.key]}


def unkeyed(data: bytes, board: Board, prompts: Prompts) -> object:
    """A public snapshot of a finished game with its key taken out, after checking that the key it shows
    is this board's own and that every text in it comes from its view."""
    snapshot = json.loads(data)
    view = snapshot["view"]
    assert view["over"] and view["reveal"] == whole_key(board), "the whole key, and only once the game is over"
    assert snapshot["text"] == texts(view, prompts)
    hidden = {**view, "reveal": None}
    return {**snapshot, "view": hidden, "text": texts(hidden, prompts)}


LENGTH = re.compile(rb"\r\nContent-Length: \d+")


def same_public(answers: list[bytes], boards: list[Board], prompts: Prompts, over: bool) -> bool:
    """Byte-identical while the game goes on; once it is over, identical but for each board's own key.
    `answers` are two HTTP responses or two event-stream messages."""
    if not over or answers[0] == answers[1]:
        return answers[0] == answers[1]
    if answers[0].startswith(b"HTTP/"):
        heads, bodies = zip(*(answer.partition(b"\r\n\r\n")[::2] for answer in answers), strict=True)
        if b"application/json" not in heads[0] or LENGTH.sub(b"", heads[0]) != LENGTH.sub(b"", heads[1]):
            return False
    else:  # "id: N\ndata: {...}\n\n"
        heads, bodies = zip(*(answer.rstrip(b"\n").split(b"\ndata: ", 1) for answer in answers), strict=True)
        if heads[0] != heads[1]:
            return False
    return unkeyed(bodies[0], boards[0], prompts) == unkeyed(bodies[1], boards[1], prompts)


def key_of(board: Board, index: int) -> object:
    return (board.key_a[index], board.key_b[index]) if board.is_duet else board.key[index]


@pytest.mark.parametrize(
    ("edition", "lang"), [(Edition.CLASSIC, Lang.EN), (Edition.PICTURES, Lang.PT_BR), (Edition.DUET, Lang.IT)]
)
def test_public_bytes_do_not_depend_on_hidden_identities(edition: Edition, lang: Lang) -> None:
    first = deal(edition, lang, seed=11)
    script = duet_script(first) if edition is Edition.DUET else competitive_script(first)
    finished = play(first, script)
    second = hidden_twin(first, finished, seed=5)
    differs = [i for i in range(len(first.cards)) if key_of(first, i) != key_of(second, i)]
    assert len(differs) >= 4, "the twin board must really differ"
    if edition is Edition.DUET:
        half_known = [i for i in range(len(first.cards)) if len(known(finished, i)) == 1]
        assert len(half_known) >= 2 and set(half_known) <= set(differs), "one-side cards must differ on the other"

    prompts = Prompts.load(lang)
    games = [new_game(first), new_game(second)]
    displays = [WebDisplay(game, prompts, port=0) for game in games]
    streams = [EventStream(display.port, "/events") for display in displays]
    try:
        assert streams[0].head == streams[1].head

        boards = [first, second]

        def same_public_bytes(step: str) -> None:
            over = games[0].over
            messages = [events.next() for events in streams]
            assert same_public(messages, boards, prompts, over), f"event stream differs after {step}"
            for path in PUBLIC_PATHS:
                answers = [raw_get(display.port, path) for display in displays]
                assert same_public(answers, boards, prompts, over), f"{path} differs after {step}"
                for token in (display.tokens.token(v) for display in displays for v in ("spymasters", "a", "b")):
                    assert token.encode() not in answers[0]
                if path == "/state":
                    assert (b'"reveal":null' in answers[0]) is not over, "the key shows when, and only when, it is over"

        same_public_bytes("the start")
        for number, action in enumerate(script, start=1):
            batches = [action(game) for game in games]
            assert [e.to_dict() for e in batches[0]] == [e.to_dict() for e in batches[1]], "the script must be public"
            for game, display in zip(games, displays, strict=True):
                display.show(game)
            shown = [events.next() for events in streams]
            assert same_public(shown, boards, prompts, games[0].over), f"event stream differs after action {number}"
            for game, display, batch in zip(games, displays, batches, strict=True):
                display.said(announcer_for(game, prompts).describe(batch))
            same_public_bytes(f"action {number}")
            if number == 3:
                for display in displays:
                    display.timer(45, True)
                same_public_bytes("the timer")
        assert all(game.over for game in games)
        ended = [json.loads(raw_get(display.port, "/state").partition(b"\r\n\r\n")[2]) for display in displays]
        assert [state["view"]["reveal"] for state in ended] == [whole_key(first), whole_key(second)]
        assert ended[0] != ended[1], "each board shows its own key at the end"
    finally:
        for events in streams:
            events.close()
        for display in displays:
            display.close()
