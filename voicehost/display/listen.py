"""What a key page reads aloud in listen mode, phrased here from one holder's key and the public view.

A blind spymaster hears the key instead of seeing it: the page speaks these answers with the
browser's own speech synthesis, so the key reaches only the earphones of the phone that holds the
page. Each answer comes in both reading orders (alphabetical, row by row); the page picks one.
The two spymasters share one page in Classic and Pictures, so it carries the answers for both teams
(each player says which team is theirs; co-op has one); a Duet page carries only its side.
"""

from __future__ import annotations

from typing import Any

from engine.lang import Lang, fold_text
from engine.pieces import Team
from voicehost.display.texts import View
from voicehost.prompts import Prompts

SPEECH_LANGS = {Lang.PT_BR: "pt-BR", Lang.PT_PT: "pt-PT", Lang.IT: "it-IT", Lang.EN: "en-US"}
"""The voice a browser should use for each game language (a BCP 47 tag with a region)."""
ORDERS = ("alpha", "grid")
QUESTIONS = {
    True: ("agents", "assassin", "opponents", "bystanders", "left", "last_clue"),
    False: ("greens", "assassins", "bystanders", "left", "last_clue"),
}
"""The questions a key page offers, competitive (True) or Duet (False); each is an `ask_<name>` button."""

Answer = dict[str, str]
"""One answer, by reading order."""


def speech_lang(lang: str) -> str:
    return SPEECH_LANGS[Lang(lang)]


def listen_part(view: View, identities: list[str], viewer: str, p: Prompts) -> dict[str, Any]:
    """Per owner (a team, or the Duet side): `answers` by question, and `covered`, the announcement of
    each of the owner's cards that is covered, by card index (the page says the ones newly covered)."""
    if "competitive" in view:
        game = view["competitive"]
        teams = [game["starting_team"]] if game["coop"] else [team.value for team in Team]
        return {"by": {team: _competitive(view, identities, team, p) for team in teams}}
    return {"by": {viewer: _duet(view, identities, viewer, p)}}


def _competitive(view: View, key: list[str], team: str, p: Prompts) -> dict[str, Any]:
    mine, theirs = _open(view, key, team), _open(view, key, Team(team).other.value)
    bystanders, assassins = _open(view, key, "bystander"), _open(view, key, "assassin")
    answers = {
        "agents": _listing("display.say_agents", view, mine, p),
        "assassin": _listing("display.say_assassin", view, assassins, p),
        "opponents": _listing("display.say_opponents", view, theirs, p),
        "bystanders": _listing("display.say_bystanders", view, bystanders, p),
        "left": _listing(
            "display.say_left",
            view,
            mine,
            p,
            opponents=len(theirs),
            bystanders=len(bystanders),
            assassins=len(assassins),
        ),
        "last_clue": _last_clue("display.say_last_clue", view, team, mine, p),
    }
    return {"answers": answers, "covered": _covered("display.say_covered", view, key, team, p)}


def _duet(view: View, key: list[str], side: str, p: Prompts) -> dict[str, Any]:
    """What the clue giver of one side needs: the greens the partner must still find there, the
    assassins and the bystanders the partner could still touch (a card marked from this side is known)."""
    greens, assassins = _open(view, key, "green"), _open(view, key, "assassin")
    bystanders = [i for i in _open(view, key, "bystander") if side not in view["cards"][i]["marks"]]
    duet = view["duet"]
    answers = {
        "greens": _listing("display.say_greens", view, greens, p),
        "assassins": _listing("display.say_assassins", view, assassins, p),
        "bystanders": _listing("display.say_bystanders_side", view, bystanders, p),
        "left": _listing(
            "display.say_left_duet",
            view,
            greens,
            p,
            assassins=len(assassins),
            bystanders=len(bystanders),
            total=duet["greens_total"] - duet["greens_found"],
            tokens=duet["tokens_left"],
        ),
        "last_clue": _last_clue("display.say_last_clue_duet", view, side, greens, p),
    }
    return {"answers": answers, "covered": _covered("display.say_covered_green", view, key, "green", p)}


def _open(view: View, key: list[str], identity: str) -> list[int]:
    """The uncovered cards the key gives `identity`, in board order."""
    return [i for i, card in enumerate(view["cards"]) if not card["covered"] and key[i] == identity]


def _listing(template: str, view: View, indices: list[int], p: Prompts, **more: Any) -> Answer:
    """`template` filled with the cards (`{count}`, `{cards}`) and `more`, in each reading order."""
    return {
        order: p.text(template, count=len(indices), cards=names(view, indices, order, p), **more) for order in ORDERS
    }


def names(view: View, indices: list[int], order: str, p: Prompts) -> str:
    """The cards' names alphabetically ("A, B, C"), or row by row ("row 1: A, B; row 3: C")."""
    cards = view["cards"]
    if not indices:
        return p.text("display.say_none")
    if order == "alpha":
        return ", ".join(sorted((cards[i]["name"] for i in indices), key=lambda name: (fold_text(name), name)))
    rows: dict[int, list[str]] = {}
    for index in sorted(indices):
        rows.setdefault(index // view["columns"] + 1, []).append(cards[index]["name"])
    return "; ".join(p.text("display.say_row", row=row, cards=", ".join(found)) for row, found in rows.items())


def _last_clue(template: str, view: View, owner: str, hidden: list[int], p: Prompts) -> Answer:
    """The owner's last clue (public) with the owner's cards still hidden (private)."""
    clue = next((item for item in reversed(view["clues"]) if item["by"] == owner), None)
    if clue is None:
        return dict.fromkeys(ORDERS, p.text("display.say_no_clue"))
    number = p.text("info.unlimited") if clue["number"] == "unlimited" else clue["number"]
    return _listing(template, view, hidden, p, word=clue["word"], number=number)


def _covered(template: str, view: View, key: list[str], identity: str, p: Prompts) -> dict[str, str]:
    return {
        str(i): p.text(template, card=card["name"])
        for i, card in enumerate(view["cards"])
        if card["identity"] == identity and key[i] == identity  # a Duet card lost on the other side is not found
    }
