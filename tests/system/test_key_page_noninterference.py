"""Noninterference with the key pages' private requests: covering and checking leave no public trace.

As in test_display_noninterference.py, the same game is played on two boards whose keys differ only
where nobody may look; here the key pages also make their private requests over HTTP while it goes
on (a clue checked, a card refused, the penalty or the simulated team's card covered through the real
referee's `Host.cover`). After every step, every public address and the public event stream are
byte-identical on the two boards (once the game is over, but for each board's own key, turned over on
the board as the table turns the key card); a request answered privately adds no public message at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from engine.board import Board
from engine.competitive import CompetitiveGame
from engine.editions import AnyGame, new_game
from engine.lang import Lang
from engine.pieces import Edition, Identity
from engine.variants import Variants
from tests.browser.test_key_page_private import post
from tests.display_demo import deal
from tests.display_support import PUBLIC_PATHS, EventStream, raw_get
from tests.system.test_display_noninterference import Action, duet_script, hidden_twin, key_of, own, same_public
from voicehost.display.private import clue_checker
from voicehost.display.web import WebDisplay
from voicehost.prompts import Prompts
from voicehost.referee.announcer import announcer_for
from voicehost.referee.host import Host, HostSettings

Chooser = Callable[[list[AnyGame]], str]
"""Picks the card of a private request, knowing the games on both boards (the same card on both)."""


@dataclass(frozen=True)
class Step:
    """One thing the table does: `play` an action through the engine (announced aloud, as the host
    would), or a key page's private request: `check` a word, `cover` a card (chosen by `card`) that
    the referee covers on both boards, or `refuse`, one it refuses on both."""

    kind: str
    action: Action | None = None
    word: str = ""
    card: Chooser | None = None


def play(action: Action) -> Step:
    return Step("play", action=action)


def first_of(team_of: Callable[[CompetitiveGame], Identity]) -> Chooser:
    """The first uncovered card that is `team_of(game)` on the first board."""

    def choose(games: list[AnyGame]) -> str:
        game = games[0]
        assert isinstance(game, CompetitiveGame)
        key, wanted = game.board.key, team_of(game)
        return next(c for i, c in enumerate(game.board.cards) if key[i] is wanted and not game.is_covered(i))

    return choose


def refused_on_both(games: list[AnyGame]) -> str:
    """An uncovered card whose identity differs on the two boards and that neither may cover now."""
    first, second = (game.board for game in games)
    allowed = {card for game in games for card in game.cover_choices()}
    return next(
        card
        for i, card in enumerate(first.cards)
        if not games[0].is_covered(i) and card not in allowed and first.key[i] is not second.key[i]
    )


def not_a_card(games: list[AnyGame]) -> str:
    return "NOT A CARD"


def mine(game: CompetitiveGame) -> Identity:
    return Identity.of_team(game.team)


def theirs(game: CompetitiveGame) -> Identity:
    return Identity.of_team(game.team.other)


def enemy(game: CompetitiveGame) -> Identity:
    """Co-op: the simulated team's agents."""
    return Identity.of_team(game.players_team.other)


def competitive_steps(board: Board, coop: bool) -> list[Step]:
    if coop:  # the players miss; the simulated team's turn: its spymaster picks its card in private
        return [
            play(lambda g: g.give_clue("ALPHA", 2)),  # type: ignore[call-arg]
            play(own(mine, board)),
            Step("check", word="zebra"),
            play(own(lambda g: Identity.BYSTANDER, board)),
            Step("check", word="FBI"),
            Step("refuse", card=refused_on_both),
            Step("cover", card=first_of(enemy)),
            play(lambda g: g.give_clue("BRAVO", 1)),  # type: ignore[call-arg]
            Step("refuse", card=first_of(enemy)),  # the players guess: nothing to cover
            play(own(lambda g: Identity.ASSASSIN, board)),
        ]
    return [
        play(lambda g: g.give_clue("ALPHA", 2)),  # type: ignore[call-arg]
        Step("check", word="zebra"),
        play(own(mine, board)),
        play(lambda g: g.end_turn()),
        play(lambda g: g.reject_clue("BRAVO", "visible_word")),  # type: ignore[call-arg]
        Step("check", word="FBI"),
        Step("refuse", card=refused_on_both),
        Step("refuse", card=not_a_card),
        Step("cover", card=first_of(mine)),
        Step("check", word="x"),
        play(lambda g: g.give_clue("CHARLIE", 1)),  # type: ignore[call-arg]
        Step("refuse", card=first_of(mine)),  # no penalty any more: even the team's own agent is refused
        play(own(theirs, board)),
        play(lambda g: g.give_clue("DELTA", 3)),  # type: ignore[call-arg]
        play(own(lambda g: Identity.ASSASSIN, board)),
    ]


def duet_steps(board: Board) -> list[Step]:
    steps: list[Step] = []
    for number, action in enumerate(duet_script(board)):
        steps.append(play(action))
        if number % 3 == 0:
            steps.append(Step("check", word=["zebra", "FBI", "x", "sushi"][number % 4]))
    return steps


def dry_run(board: Board, steps: list[Step], variants: Variants) -> AnyGame:
    """The game the steps play on the first board alone: what the table ends up knowing."""
    game = new_game(board, variants)
    for step in steps:
        if step.kind == "play":
            assert step.action is not None
            step.action(game)
        elif step.kind == "cover":
            assert step.card is not None
            game.cover(step.card([game]))
    return game


class Table:
    """One board: its game, the web display, the real referee for the private cover, an open public stream."""

    def __init__(self, board: Board, variants: Variants, prompts: Prompts) -> None:
        self.game = new_game(board, variants)
        self.prompts = prompts
        self.display = WebDisplay(self.game, prompts, port=0)
        self.host = Host(
            self.game,
            prompts,
            self,
            settings=HostSettings(simulated="choose", key_pages=True),
            on_events=lambda game, events: self.display.show(game),
        )
        self.display.handle_private(on_cover=self.host.cover, on_check=clue_checker(lambda: self.host.game))
        self.stream = EventStream(self.display.port, "/events")

    def say(self, text: str) -> None:  # the host's mouth: what it says is shown on the public page
        self.display.said(text)

    def play(self, action: Action) -> list[dict[str, Any]]:
        events = action(self.game)
        self.display.show(self.game)
        self.display.said(announcer_for(self.game, self.prompts).describe(events))
        return [event.to_dict() for event in events]

    def ask(self, what: str, field: str, value: str) -> Any:
        """A key page's private request; its JSON answer."""
        viewer = "spymasters" if self.game.TEAMS else "a"
        response = post(self.display.port, f"/key/{self.display.tokens.token(viewer)}/{what}", {field: value})
        assert response.split(b" ", 2)[1] == b"200", response
        return json.loads(response.partition(b"\r\n\r\n")[2])

    def public(self) -> dict[str, bytes]:
        return {path: raw_get(self.display.port, path) for path in PUBLIC_PATHS}

    def settle(self) -> bytes:
        """The stream's message that carries the page as it is now. A change and its announcement come
        one right after the other: the stream may send both, or only the newer (as a slow phone would)."""
        now = raw_get(self.display.port, "/state").partition(b"\r\n\r\n")[2]
        while not (message := self.stream.next()).endswith(b"data: " + now + b"\n\n"):
            pass
        return message

    def silent(self) -> bool:
        """No public message is waiting on the stream."""
        self.stream.conn.settimeout(0.3)
        try:
            self.stream.next()
        except TimeoutError:
            return True
        finally:
            self.stream.conn.settimeout(5)
        return False

    def close(self) -> None:
        self.stream.close()
        self.host.close()
        self.display.close()


@pytest.mark.parametrize(
    ("edition", "lang", "coop"),
    [(Edition.CLASSIC, Lang.EN, False), (Edition.PICTURES, Lang.PT_BR, True), (Edition.DUET, Lang.IT, False)],
)
def test_private_requests_leave_the_public_bytes_identical(edition: Edition, lang: Lang, coop: bool) -> None:
    first = deal(edition, lang, seed=11)
    variants = Variants(coop=coop)
    steps = duet_steps(first) if edition is Edition.DUET else competitive_steps(first, coop)
    second = hidden_twin(first, dry_run(first, steps, variants), seed=5)
    assert sum(key_of(first, i) != key_of(second, i) for i in range(len(first.cards))) >= 4

    prompts = Prompts.load(lang)
    tables = [Table(first, variants, prompts), Table(second, variants, prompts)]
    kinds: list[str] = []
    try:
        boards = [first, second]

        def same_public_bytes(step: str) -> None:
            pages = [table.public() for table in tables]
            over = tables[0].game.over
            for path in pages[0]:
                answers = [page[path] for page in pages]
                assert same_public(answers, boards, prompts, over), f"{path} differs after {step}"
            for table in tables:
                for token in (table.display.tokens.token(viewer) for viewer in ("spymasters", "a", "b")):
                    assert not any(token.encode() in page for page in pages[0].values())

        starts = [table.stream.next() for table in tables]
        assert starts[0] == starts[1]
        same_public_bytes("the start")
        for number, step in enumerate(steps, start=1):
            kinds.append(step.kind)
            before = tables[0].public()
            if step.kind == "play":
                assert step.action is not None
                batches = [table.play(step.action) for table in tables]
                assert batches[0] == batches[1], "the script must be public"
                shown = [table.settle() for table in tables]
                over = tables[0].game.over
                assert same_public(shown, boards, prompts, over), f"event stream differs after step {number}"
            elif step.kind == "check":
                answers = [table.ask("check", "word", step.word) for table in tables]
                assert answers[0] == answers[1] and answers[0]["text"]
                assert all(table.silent() for table in tables) and tables[0].public() == before
            else:
                assert step.card is not None
                card = step.card([table.game for table in tables])
                answers = [table.ask("cover", "card", card) for table in tables]
                assert (
                    answers[0]
                    == answers[1]
                    == {
                        "ok": step.kind == "cover",
                        "text": prompts.text(
                            f"display.cover_{'done' if step.kind == 'cover' else 'refused'}", card=card
                        ),
                    }
                )
                if step.kind == "refuse":
                    assert all(table.silent() for table in tables) and tables[0].public() == before
                else:  # covered: the board changes and the host says so, on both boards alike
                    shown = [table.settle() for table in tables]
                    assert shown[0] == shown[1], f"event stream differs after the cover at step {number}"
            same_public_bytes(f"step {number} ({step.kind})")
        assert all(table.game.over for table in tables)
        assert set(kinds) == ({"play", "check"} if edition is Edition.DUET else {"play", "check", "refuse", "cover"})
    finally:
        for table in tables:
            table.close()
