"""The static files of the pages (package data in `static/`) and the page template filled per viewer.

The template takes only the language, the title and the fixed labels, never game state: the page
is a shell that the event stream fills, so the same bytes serve every moment of a game.
"""

from __future__ import annotations

import html
import json
import string
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final

STATIC: Final = {
    "board.css": "text/css; charset=utf-8",
    "board.js": "text/javascript; charset=utf-8",
}
"""What /static/<name> serves; anything else is a 404."""


@dataclass(frozen=True)
class Asset:
    body: bytes
    content_type: str


@cache
def static_asset(name: str) -> Asset | None:
    if name not in STATIC:
        return None
    body = resources.files("voicehost.display").joinpath("static", name).read_bytes()
    return Asset(body, STATIC[name])


@cache
def _template() -> string.Template:
    return string.Template(resources.files("voicehost.display").joinpath("static", "page.html").read_text("utf-8"))


def render_page(*, lang: str, title: str, mode: str, events_url: str, note: str, labels: dict[str, str]) -> bytes:
    """The HTML of the public page (mode "board") or of a key page (mode "key", with its private `note`)."""
    labels_json = json.dumps(labels, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")
    return (
        _template()
        .substitute(
            lang=html.escape(lang),
            title=html.escape(title),
            mode=html.escape(mode),
            events=html.escape(events_url),
            note=html.escape(note),
            note_hidden="" if note else " hidden",
            labels=labels_json,
            said_heading=html.escape(labels["said_heading"]),
            status_heading=html.escape(labels["status_heading"]),
            clues_heading=html.escape(labels["clues_heading"]),
            timer=html.escape(labels["timer"]),
            reconnecting=html.escape(labels["reconnecting"]),
        )
        .encode("utf-8")
    )
