"""What each address serves. Unknown addresses and wrong tokens get one and the same 404.

Public: `/` (the board page), `/state` (its JSON), `/events` (its event stream), `/static/...`.
Private: `/key/<token>`, `/key/<token>/state` and `/key/<token>/events`, for the viewers of the
current game only (see `tokens.VIEWERS`); and a key page's private requests, by POST only:
`/key/<token>/cover` (`{"card": ...}`) and `/key/<token>/check` (`{"word": ...}`), answered with a
small private JSON. A body that is not one short line of text (bad JSON or UTF-8, a lone surrogate,
a control character) is a 400 whose JSON says so in the game's language (`refusal`).
"""

from __future__ import annotations

import json
import threading
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from voicehost.display.assets import static_asset
from voicehost.display.hub import Hub
from voicehost.display.tokens import KeyTokens

JSON: Final = "application/json; charset=utf-8"
HTML: Final = "text/html; charset=utf-8"
NOT_FOUND_BODY: Final = b'<!doctype html><html lang="en"><title>Not found</title><p>Not found.</p></html>\n'
PUBLIC: Final = "public"
ACTIONS: Final = {"cover": "card", "check": "word"}
"""The private requests a key page may send, each with the one field its JSON body holds."""
MAX_VALUE: Final = 64
"""Characters in that field: a card's name or a clue word, with room to spare."""

Action = Callable[[str, str], dict[str, Any] | None]
"""A private request: (viewer, the field's value) -> the JSON answer; None when the display cannot
answer it (no handler was given): the one 404."""


@dataclass(frozen=True)
class Page:
    status: int
    content_type: str
    body: bytes
    private: bool = False


@dataclass(frozen=True)
class Stream:
    channel: str
    private: bool = False


NOT_FOUND: Final = Page(404, HTML, NOT_FOUND_BODY)
FAILED: Final = Page(500, JSON, b"{}", private=True)
UNREADABLE: Final = frozenset({"Cc", "Cs"})
"""Unicode categories no card name or clue word holds: control characters, and halves of a surrogate
pair (JSON's `\ud800` escape decodes to one, which no UTF-8 text can carry)."""


def key_channel(viewer: str) -> str:
    return f"key:{viewer}"


class Site:
    """Resolves paths against the hub's snapshots; the display updates its pages and viewers."""

    def __init__(
        self,
        hub: Hub,
        tokens: KeyTokens,
        actions: Mapping[str, Action] | None = None,
        refusal: Callable[[], str] = lambda: "",
    ) -> None:
        """`refusal` phrases, in the game's language, why a private request's body could not be read."""
        self.hub = hub
        self.tokens = tokens
        self.actions = dict(actions or {})
        self.refusal = refusal
        self._lock = threading.Lock()
        self._pages: dict[str, bytes] = {}
        self._viewers: tuple[str, ...] = ()

    def update(self, pages: dict[str, bytes], viewers: Iterable[str]) -> None:
        """`pages` by channel: the public page under PUBLIC, each key page under its key channel."""
        with self._lock:
            self._pages = dict(pages)
            self._viewers = tuple(viewers)

    def resolve(self, raw_path: str) -> Page | Stream:
        path = urlsplit(raw_path).path
        if path.startswith("/key/"):
            return self._private(path.removeprefix("/key/"))
        if path.startswith("/static/"):
            asset = static_asset(path.removeprefix("/static/"))
            return Page(200, asset.content_type, asset.body) if asset else NOT_FOUND
        return self._serve(PUBLIC, {"/": "page", "/state": "state", "/events": "events"}.get(path), private=False)

    def action(self, raw_path: str) -> Callable[[bytes], Page] | None:
        """The private request at this address, to run on the request's body; None: the one 404."""
        path = urlsplit(raw_path).path
        if not path.startswith("/key/"):
            return None
        viewer, what = self._viewer(path.removeprefix("/key/"))
        act = self.actions.get(what)
        if viewer is None or act is None or what not in ACTIONS:
            return None
        return lambda body: _answer(act, viewer, ACTIONS[what], body, self.refusal)

    def _viewer(self, rest: str) -> tuple[str | None, str]:
        """Whose token starts `rest` (None: nobody's), and what follows it."""
        token, _, what = rest.partition("/")
        with self._lock:
            viewers = self._viewers
        return self.tokens.viewer(token, viewers), what

    def _private(self, rest: str) -> Page | Stream:
        viewer, what = self._viewer(rest)
        if viewer is None:
            return NOT_FOUND
        return self._serve(key_channel(viewer), {"": "page", "state": "state", "events": "events"}.get(what), True)

    def _serve(self, channel: str, what: str | None, private: bool) -> Page | Stream:
        if what == "events":
            return Stream(channel, private)
        if what == "page":
            with self._lock:
                page = self._pages.get(channel)
            return Page(200, HTML, page, private) if page is not None else NOT_FOUND
        if what == "state":
            current = self.hub.current(channel)
            return Page(200, JSON, current[1], private) if current is not None else NOT_FOUND
        return NOT_FOUND


def _answer(act: Action, viewer: str, field: str, body: bytes, refusal: Callable[[], str]) -> Page:
    """Run a private request on its JSON body: one short line of text in one field, or a 400 that says why."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        data = None
    value = data.get(field) if isinstance(data, dict) else None
    if not isinstance(value, str) or len(value) > MAX_VALUE or not readable(value):
        return Page(400, JSON, _encode({"ok": False, "text": refusal()}), private=True)
    try:
        answer = act(viewer, value.strip())
        return Page(200, JSON, _encode(answer), private=True) if answer is not None else NOT_FOUND
    except Exception:  # the host's console is for the players: the page says it got no answer
        return FAILED


def readable(text: str) -> bool:
    """Whether `text` is plain text a page could have typed: no control character, no lone surrogate."""
    return not any(unicodedata.category(char) in UNREADABLE for char in text)


def _encode(answer: object) -> bytes:
    return json.dumps(answer, ensure_ascii=False, sort_keys=True).encode("utf-8")
