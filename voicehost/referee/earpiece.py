"""A blind spymaster's key, by ear: asked aloud ("Host, read my key"), answered in a private earpiece.

`voicehost play --key-audio DEVICE` gives the host a second mouth, the earpiece (a Bluetooth earpiece, or
a WAV file), for the spymaster who cannot see the key card. The request is public, the answer private:

- *read my key* (row by row on request): the agents of the spymaster giving the clue, the assassin, the
  opponents' agents, the innocent bystanders (Duet: that player's side: greens, assassins, bystanders);
- *read my agents* / *what is left for me*: their agents still hidden;
- *is OCEAN allowed?*: the ruling on a clue word, by the same check as a clue given (`Game.check_clue`);
  it is no clue: nothing happens in the game.

The texts are the key page's listen mode's (`voicehost.display.listen`), so both ways read the same.
Only while a clue is awaited (and in co-op while the simulated team's card is chosen): the asker is the
spymaster whose turn it is, in Duet the clue giver (who says A or B first when either may give it).

What the table hears (the loudspeaker, the display's announcements) is the same whatever the key: a
short acknowledgment by the kind of request, or a refusal by the phase; without an earpiece, how to
hear the key in private. Nothing is written to the events log or the save.
"""

from __future__ import annotations

from typing import Final

from engine.editions import AnyGame
from engine.game import Phase, Player
from engine.legality import Reason
from voicehost.display.listen import listen_part
from voicehost.display.private import ruling_text
from voicehost.display.state import key_identities, public_state
from voicehost.prompts import Prompts
from voicehost.referee.effects import Effect, Say, Whisper
from voicehost.referee.view import View
from voicehost.understanding.results import Command

ROW_BY_ROW: Final = frozenset({Command.READ_KEY_GRID, Command.READ_MY_AGENTS_GRID})
WHOLE_KEY: Final = frozenset({Command.READ_KEY, Command.READ_KEY_GRID})
KEY_PARTS: Final = {
    True: ("agents", "assassin", "opponents", "bystanders"),
    False: ("greens", "assassins", "bystanders"),
}
"""The key page's answers that make up the whole key, in the order they are read (competitive, Duet)."""
AGENTS: Final = {True: "agents", False: "greens"}
ASKING_PHASES: Final = (Phase.CLUE, Phase.SIMULATED_TURN)


def answer(view: View, command: Command, word: str = "") -> list[Effect]:
    """Answer one request: aloud only what does not depend on the key, the rest in the earpiece."""
    game = view.game

    def aloud(key: str) -> Say:
        return Say(view.t(key), remember=False)

    if not view.has_earpiece:
        return [aloud("earpiece.how")]
    if game.over or game.state.phase not in ASKING_PHASES:
        return [aloud("earpiece.not_now")]
    if command is Command.CHECK_CLUE:
        if not word.strip():
            return [aloud("earpiece.check_how")]
        return [aloud("earpiece.checking"), Whisper(check_text(game, view.p, word))]
    owner = key_owner(game, view.clue_giver())
    if owner is None:
        return [aloud("earpiece.which_side")]
    return [aloud("earpiece.reading"), Whisper(key_text(game, view.p, owner, command))]


def key_owner(game: AnyGame, giver: Player | None) -> str | None:
    """Whose key is read: the team whose spymaster gives the clue (co-op: the players' team), or the
    Duet side of the clue giver (`giver`, None while either player may give it)."""
    return game.clue_owner(giver)


def key_text(game: AnyGame, p: Prompts, owner: str, command: Command) -> str:
    """The private reading for `owner` (a team or a Duet side): the whole key, or their agents still hidden."""
    viewer = game.KEY_HOLDERS[0] if game.TEAMS else owner  # the spymasters share one key; a Duet side is one player's
    view = public_state(game)
    answers = listen_part(view, key_identities(game, viewer), viewer, p)["by"][owner]["answers"]
    order = "grid" if command in ROW_BY_ROW else "alpha"
    parts = KEY_PARTS[game.TEAMS] if command in WHOLE_KEY else (AGENTS[game.TEAMS],)
    if game.TEAMS:
        heading = p.text("earpiece.for_team", Team=p.text(f"team.{owner.capitalize()}"))
    else:
        heading = p.text("earpiece.for_side", side=owner.upper())
    return " ".join([heading, *(str(answers[part][order]) for part in parts)])


def check_text(game: AnyGame, p: Prompts, word: str) -> str:
    """The ruling on a clue word as the host would rule on it given as a clue (filler words before it
    dropped the same way), phrased as the key page phrases it."""
    ruling = game.check_clue(word)
    if ruling.reason is Reason.NOT_ONE_WORD:
        word = word.split()[-1]
        ruling = game.check_clue(word)
    return ruling_text(word, ruling, p)
