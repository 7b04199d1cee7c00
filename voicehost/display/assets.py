"""The static files of the pages (package data in `static/`) and the page template filled per viewer.

The template takes only the language, the title and the fixed labels, never game state: the page
is a shell that the event stream fills, so the same bytes serve every moment of a game. A key page's
shell adds its private panel (`key.html`: listen mode, the private cover and clue check) and `key.js`;
the public page has neither.
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
    "key.js": "text/javascript; charset=utf-8",
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
def _template(name: str = "page.html") -> string.Template:
    return string.Template(resources.files("voicehost.display").joinpath("static", name).read_text("utf-8"))


def _json(data: object) -> str:
    """JSON to sit inside a <script> element: no "<" that could close it."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")


def render_key_panel(*, speech: str, teams: dict[str, str], questions: dict[str, str], labels: dict[str, str]) -> str:
    """A key page's private panel: `teams` (value: name; empty in Duet) and `questions` (name: button
    label) as buttons, `labels` the `[display]` texts it shows or its script says."""
    team_buttons = "".join(
        f'\n          <button type="button" class="big" data-choose-team="{html.escape(value)}" aria-pressed="false">'
        f"{html.escape(name)}</button>"
        for value, name in teams.items()
    )
    team_group = (
        '\n      <div id="team-choice" class="choice" role="group" aria-labelledby="team-heading">'
        f'\n        <h3 id="team-heading">{html.escape(labels["listen_team"])}</h3>{team_buttons}\n      </div>'
        if teams
        else ""
    )
    question_buttons = "".join(
        f'\n        <button type="button" class="big" data-question="{html.escape(name)}">{html.escape(label)}</button>'
        for name, label in questions.items()
    )
    return _template("key.html").substitute(
        {name: html.escape(text) for name, text in labels.items()},
        speech=html.escape(speech),
        teams=team_group,
        questions=question_buttons,
        key_labels=_json(labels),
    )


def render_page(
    *, lang: str, title: str, mode: str, events_url: str, note: str, labels: dict[str, str], private: str = ""
) -> bytes:
    """The HTML of the public page (mode "board") or of a key page (mode "key", with its private `note`
    and its `private` panel from `render_key_panel`)."""
    return (
        _template()
        .substitute(
            lang=html.escape(lang),
            title=html.escape(title),
            mode=html.escape(mode),
            events=html.escape(events_url),
            note=html.escape(note),
            note_hidden="" if note else " hidden",
            labels=_json(labels),
            private=private,
            # before board.js: deferred scripts run in order, so key.js listens before the first snapshot
            key_script='<script src="/static/key.js" defer></script>\n' if private else "",
            said_heading=html.escape(labels["said_heading"]),
            status_heading=html.escape(labels["status_heading"]),
            clues_heading=html.escape(labels["clues_heading"]),
            timer=html.escape(labels["timer"]),
            reconnecting=html.escape(labels["reconnecting"]),
        )
        .encode("utf-8")
    )
