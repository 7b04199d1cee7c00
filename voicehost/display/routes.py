"""What each address serves. Unknown addresses and wrong tokens get one and the same 404.

Public: `/` (the board page), `/state` (its JSON), `/events` (its event stream), `/static/...`.
Private: `/key/<token>`, `/key/<token>/state` and `/key/<token>/events`, for the viewers of the
current game only (see `tokens.VIEWERS`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from voicehost.display.assets import static_asset
from voicehost.display.hub import Hub
from voicehost.display.tokens import KeyTokens

JSON: Final = "application/json; charset=utf-8"
HTML: Final = "text/html; charset=utf-8"
NOT_FOUND_BODY: Final = b'<!doctype html><html lang="en"><title>Not found</title><p>Not found.</p></html>\n'
PUBLIC: Final = "public"


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


def key_channel(viewer: str) -> str:
    return f"key:{viewer}"


class Site:
    """Resolves paths against the hub's snapshots; the display updates its pages and viewers."""

    def __init__(self, hub: Hub, tokens: KeyTokens) -> None:
        self.hub = hub
        self.tokens = tokens
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

    def _private(self, rest: str) -> Page | Stream:
        token, _, what = rest.partition("/")
        with self._lock:
            viewers = self._viewers
        viewer = self.tokens.viewer(token, viewers)
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
