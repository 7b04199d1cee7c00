"""The JSON each page receives: the public snapshot, and a key page's snapshot built on top of it.

Bytes are encoded one way only (sorted keys, no spaces), so equal snapshots are equal bytes: the
hub pushes only real changes, and the noninterference test can compare what was served.
"""

from __future__ import annotations

import json
from typing import Any

from engine.editions import AnyGame
from voicehost.display.listen import listen_part
from voicehost.display.private import cover_offer
from voicehost.display.state import key_identities
from voicehost.display.texts import View, card_text, key_note, page_title
from voicehost.prompts import Prompts

LABELS = ("said_heading", "status_heading", "clues_heading", "timer", "timer_paused", "timer_up", "reconnecting")
"""Fixed words of the page shell, from the `[display]` prompts."""


KEY_LABELS = (
    *("listen_heading", "listen_help", "listen_mode", "listen_on", "listen_team", "listen_questions"),
    *("listen_order", "order_alpha", "order_grid", "listen_stop", "listen_answer", "listen_covered"),
    *("listen_choose_team", "listen_no_answer", "cover_heading", "check_heading", "check_label", "check_button"),
)
"""Fixed words of a key page's private panel and its script."""


def page_labels(p: Prompts, names: tuple[str, ...] = LABELS) -> dict[str, str]:
    return {name: p.text(f"display.{name}") for name in names}


def public_payload(
    view: View, words: dict[str, Any], said: dict[str, Any], timer: dict[str, Any] | None
) -> dict[str, Any]:
    """What the public page shows: the public view, its texts (`texts(view)`), the last announcement, the timer."""
    return {"view": view, "text": words, "said": said, "timer": timer}


def key_part(
    view: View, game: AnyGame, viewer: str, p: Prompts, *, cover: bool = False, check: bool = False
) -> dict[str, Any]:
    """What a private page adds to the public snapshot: `viewer`'s key (the whole key, or one Duet side),
    its answers in listen mode, and the private requests it may make: `cover` (the cards to choose
    from, while one is to be covered; the spymasters' page only) and `check` (a clue's ruling)."""
    identities = key_identities(game, viewer)
    choices = game.cover_choices() if cover and viewer == "spymasters" else []
    return {
        "viewer": viewer,
        "title": page_title(view, p, viewer),
        "note": key_note(viewer, p),
        "identities": identities,
        "cards": [card_text(view, index, p, key=identity) for index, identity in enumerate(identities)],
        "listen": listen_part(view, identities, viewer, p),
        "cover": cover_offer(view, choices, p),
        "check": check,
    }


def key_payload(public: dict[str, Any], key: dict[str, Any]) -> dict[str, Any]:
    """A private page's snapshot: the public one, plus its key."""
    return {**public, "key": key}


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
