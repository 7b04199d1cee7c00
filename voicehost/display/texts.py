"""The words the display shows, in the game's language, computed from the public view alone.

Everything is phrased here, in Python, from `prompts/<lang>.toml`: the browser only places ready
texts, and the terminal display prints the same ones. Because the input is the public view (never
the game), no text can tell what the key hides.
"""

from __future__ import annotations

from typing import Any

from engine.pieces import Team
from voicehost.prompts import Prompts
from voicehost.understanding.positions import label

View = dict[str, Any]


def page_title(view: View, p: Prompts, viewer: str | None = None) -> str:
    """The title of the public page, or of a private key page when `viewer` is given."""
    edition = p.text(f"display.edition_{view['edition']}")
    if viewer is None:
        return p.text("display.page_title", edition=edition)
    if viewer == "spymasters":
        return p.text("display.key_title", edition=edition)
    return p.text("display.key_title_side", edition=edition, side=viewer.upper())


def key_note(viewer: str, p: Prompts) -> str:
    """The warning on a key page: who alone may look at it."""
    if viewer == "spymasters":
        return p.text("display.key_private")
    return p.text("display.key_private_side", side=viewer.upper())


def texts(view: View, p: Prompts) -> dict[str, Any]:
    """The status texts and one accessible label per card (see `card_label`)."""
    out: dict[str, Any] = {
        "title": page_title(view, p),
        "edition": p.text(f"display.edition_{view['edition']}"),
        "board": p.text("display.board_label", columns=view["columns"], rows=view["rows"]),
        "turn": turn_text(view, p),
        "clue": clue_text(view, p),
        "guesses": guesses_text(view, p),
        "counters": counters(view, p),
        "clues": [_clue_item(item, p) for item in view["clues"]],
        "result": result_text(view, p),
        "cards": [card_text(view, index, p) for index in range(len(view["cards"]))],
    }
    return out


def team(value: str, p: Prompts) -> str:
    return p.text(f"team.{Team(value).value.capitalize()}")


def _side_or_team(by: str, p: Prompts) -> str:
    return team(by, p) if by in ("red", "blue") else by.upper()


def _clue_item(item: dict[str, Any], p: Prompts) -> str:
    number = p.text("info.unlimited") if item["number"] == "unlimited" else item["number"]
    return p.text("info.clue_item", by=_side_or_team(item["by"], p), word=item["word"], number=number)


def clue_text(view: View, p: Prompts) -> str:
    clue = view["clue"]
    if not clue:
        return "" if view["over"] else p.text("display.no_clue")
    if clue["number"] == "unlimited":
        return p.text("clue.accepted_unlimited", word=clue["word"])
    return p.text("clue.accepted", word=clue["word"], number=clue["number"])


def guesses_text(view: View, p: Prompts) -> str:
    """Competitive only: Duet guesses are unlimited and the clue number is a hint."""
    if "competitive" not in view or view["phase"] != "guess":
        return ""
    left = view["competitive"]["guesses_left"]
    return p.text("game.guesses_unlimited") if left is None else p.text("game.guesses_left", count=left)


def turn_text(view: View, p: Prompts) -> str:
    """Whose turn it is and what the table waits for."""
    phase = view["phase"]
    if phase == "over":
        return p.text("display.game_over")
    if "competitive" in view:
        game = view["competitive"]
        current = team(game["team"], p)
        if phase == "clue" and game["penalty_for"] == game["team"] and game["agents_left"][game["team"]] > 0:
            return p.text("clue.penalty_cover", Team=current, how=p.text("cover.how_key_page"))
        if phase == "clue":
            return p.text("game.clue_prompt", Team=current)
        if phase == "simulated_turn":
            return p.text("turn.simulated_choose", how=p.text("cover.how_key_page"))
        guess = p.text("game.guess_prompt", Team=current, left="")
        return f"{guess} {p.text('display.sudden_death')}" if phase == "sudden_death" else guess
    duet = view["duet"]
    if phase == "clue":
        givers = duet["next_givers"]
        if len(givers) == 1:
            return p.text("game.clue_prompt_duet", side=givers[0].upper())
        return p.text("game.clue_prompt_duet_either")
    if phase == "guess":
        return p.text("game.guess_prompt_duet", side=(duet["guesser"] or "").upper())
    able = duet["sudden_death_guessers"]
    who = p.text("game.guess_prompt_duet", side=able[0].upper()) if len(able) == 1 else p.text("turn.sudden_death_who")
    return f"{p.text('display.sudden_death')} {who}"


def counters(view: View, p: Prompts) -> list[dict[str, str]]:
    """Agents left per team, or the Duet tokens, mistakes and greens left: each with a kind for its style.
    Every count says what is *left* (a count of what was found reads the wrong way across a room)."""
    if "competitive" in view:
        game = view["competitive"]
        return [
            {
                "kind": value,
                "text": p.text(
                    "display.agents_left_one" if game["agents_left"][value] == 1 else "display.agents_left",
                    Team=team(value, p),
                    left=game["agents_left"][value],
                ),
            }
            for value in (game["starting_team"], Team(game["starting_team"]).other.value)
        ]
    duet = view["duet"]
    items = []
    if duet["mission"]:
        items.append({"kind": "mission", "text": p.text("display.mission", city=duet["mission"])})
    items.append(
        {"kind": "tokens", "text": p.text("display.tokens", tokens=duet["tokens_left"], total=duet["tokens_total"])}
    )
    if duet["mistakes_left"] is not None:
        items.append({"kind": "mistakes", "text": p.text("display.mistakes", mistakes=duet["mistakes_left"])})
    items.append(
        {"kind": "green", "text": p.text("display.greens_left", left=duet["greens_total"] - duet["greens_found"])}
    )
    return items


def result_text(view: View, p: Prompts) -> str:
    """The end of the game: who won, why, and the score when there is one."""
    if not view["over"]:
        return ""
    winner, reason, score = view["winner"], view["end_reason"], view["score"]
    if "competitive" in view:
        game = view["competitive"]
        if game["coop"]:
            if winner != "players":
                return p.text("end.coop_lost_enemy" if reason == "all_found" else "end.coop_lost")
            enemy = Team(game["starting_team"]).other.value
            edition = "pictures" if game["agents_total"][enemy] == 7 else "classic"
            rating = p.text(f"coop_rating.{edition}_{score}")
            return f"{p.text('display.players_win')} {p.text('display.score', score=score)} {rating}"
        wins = p.text("end.team_wins", Team=team(winner, p))
        if reason == "all_found":
            return f"{p.text('end.all_found', Team=team(winner, p))} {wins}"
        if reason == "assassin" and not game["assassin_ending"]:
            return f"{p.text('end.assassin_lost', Team=team(Team(winner).other.value, p))} {wins}"
        return wins
    duet = view["duet"]
    if winner == "players":
        if duet["mission"]:
            return p.text("end.duet_won_mission", city=duet["mission"])
        return f"{p.text('display.players_win')} {p.text('display.score', score=score)}"
    key = {"assassin": "end.duet_lost_assassin", "sudden_death": "end.duet_lost_sudden"}.get(
        reason, "end.duet_lost_time"
    )
    return p.text(key)


def card_text(view: View, index: int, p: Prompts, key: str | None = None) -> dict[str, Any]:
    """A card's accessible label (name, place, state), the letter printed on a covered card, and once
    the game is over what the whole key says of it (`reveal`: one entry per side shown).

    `key` is the identity a private key page shows; the public page never passes it.
    """
    card = view["cards"][index]
    row, column = divmod(index, view["columns"])
    place = label(row + 1, column + 1)
    parts = [card["name"], place, p.text("display.position", row=row + 1, column=column + 1)]
    if card["covered"]:
        parts.append(p.text("display.covered", identity=p.text(f"identity.{card['identity']}")))
    else:
        parts.append(p.text("display.not_guessed"))
        parts += [p.text("display.marked", side=side.upper()) for side in card["marks"]]
    if key is not None:
        parts.append(p.text("display.key_says", identity=p.text(f"identity.{key}")))
    reveal = revealed(view, index, p) if key is None else []  # a key page shows its own key already
    parts += [item["said"] for item in reveal]
    letter_of = card["identity"] if card["covered"] else key
    letter = p.text(f"display.letter_{letter_of}") if letter_of else ""
    return {"label": ", ".join(parts), "letter": letter, "place": place, "reveal": reveal}


def revealed(view: View, index: int, p: Prompts) -> list[dict[str, str]]:
    """What the key, turned over at the end, shows of a card: each side of a Duet card (covered or not),
    or the identity of a competitive card still uncovered (a covered one shows it already)."""
    if view["reveal"] is None:
        return []
    shown = []
    for holder, key in view["reveal"].items():
        identity = key[index]
        if holder == "spymasters":
            if view["cards"][index]["covered"]:
                continue
            side, said = "", p.text("display.key_says", identity=p.text(f"identity.{identity}"))
        else:
            side = holder.upper()
            said = p.text("display.key_says_side", side=side, identity=p.text(f"identity.{identity}"))
        shown.append({"identity": identity, "side": side, "letter": p.text(f"display.letter_{identity}"), "said": said})
    return shown
