"""The web display: the public board page and the private key pages, served on one port.

Where it listens is the caller's choice (`network.table_address()` for a game at a table: the local
network's address, so phones can open the key pages); the links and QR codes carry that address.

`show`, `said` and `timer` may come from any thread (the host, its sand timer, the microphone):
each builds the new snapshots under one lock and hands them to the hub, which wakes the streams.
A key page's private requests (cover a card, check a clue) arrive on the server's threads and call
the handlers the host gave (`handle_private`) outside that lock: the host may be showing a change.
"""

from __future__ import annotations

import threading
from typing import Any

from engine.editions import AnyGame
from voicehost.display.assets import render_key_panel, render_page
from voicehost.display.hub import Hub
from voicehost.display.listen import QUESTIONS, speech_lang
from voicehost.display.network import is_loopback, reachable_address, url_host
from voicehost.display.private import CheckHandler, CoverHandler, cover_answer
from voicehost.display.qr import qr_lines
from voicehost.display.routes import PUBLIC, Site, key_channel
from voicehost.display.server import DisplayServer
from voicehost.display.snapshot import KEY_LABELS, encode, key_part, key_payload, page_labels, public_payload
from voicehost.display.state import key_viewers, public_state
from voicehost.display.texts import key_note, page_title, team, texts
from voicehost.display.tokens import KeyTokens
from voicehost.prompts import Prompts


class DisplayError(Exception):
    """The display could not start (the port is taken, the address is not this machine's)."""


class WebDisplay:
    """Serves `url` from a daemon thread until `close`. Port 0 picks a free port. `on_cover` and
    `on_check` may be given here or later with `handle_private`."""

    def __init__(
        self,
        game: AnyGame,
        prompts: Prompts,
        *,
        host: str = "127.0.0.1",
        port: int = 8080,
        on_cover: CoverHandler | None = None,
        on_check: CheckHandler | None = None,
    ) -> None:
        self._lock = threading.RLock()
        self._on_cover = on_cover
        self._on_check = on_check
        self._prompts = prompts
        self._game = game
        self._said: dict[str, Any] = {"n": 0, "text": ""}
        self._timer: dict[str, Any] | None = None
        self._view: dict[str, Any] = {}
        self._words: dict[str, Any] = {}
        self._keys: dict[str, dict[str, Any]] = {}
        self._shell: tuple[object, ...] = ()
        self.hub = Hub()
        self.tokens = KeyTokens()
        self.site = Site(
            self.hub,
            self.tokens,
            {"cover": self._cover, "check": self._check},
            refusal=lambda: self._prompts.text("display.request_unreadable"),
        )
        try:
            self.server = DisplayServer((host, port), self.site)
        except OSError as exc:
            raise DisplayError(f"the display cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        self.bind_host = host
        self.port = int(self.server.server_address[1])
        self.address = reachable_address(host)
        self.url = f"http://{url_host(self.address)}:{self.port}/"
        try:
            self.show(game)
        except BaseException:
            self.server.server_close()
            raise
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.2}, name="voicehost-display", daemon=True
        )
        self._thread.start()

    # ---- the Display protocol ----------------------------------------------------------------

    def show(self, game: AnyGame) -> None:
        """Read the game once, here; `said` and `timer` reuse that reading and never touch the game,
        so they are safe from the timer's thread while the host changes the game."""
        with self._lock:
            self._game = game
            if game.board.lang != self._prompts.lang:
                self._prompts = Prompts.load(game.board.lang)
            p = self._prompts
            self._view = public_state(game)
            self._words = texts(self._view, p)
            cover, check = self._on_cover is not None, self._on_check is not None
            self._keys = {
                viewer: key_part(self._view, game, viewer, p, cover=cover, check=check) for viewer in key_viewers(game)
            }
            self._update_shell(self._view, tuple(self._keys))
            self._publish()

    def said(self, text: str) -> None:
        with self._lock:
            self._said = {"n": self._said["n"] + 1, "text": " ".join(text.split())}
            self._publish()

    def timer(self, seconds_left: int | None, running: bool) -> None:
        with self._lock:
            self._timer = None if seconds_left is None else {"seconds": int(seconds_left), "running": bool(running)}
            self._publish()

    def console_lines(self) -> list[str]:
        """For the host's console only: the public address, each key page's address and its QR code,
        and which network a phone must be on to open them (or that none can)."""
        p = self._prompts
        with self._lock:
            viewers = key_viewers(self._game)
        lines = [p.text("display.console_board", url=self.url)]
        for viewer in viewers:
            url = self.key_url(viewer)
            if viewer == "spymasters":
                lines.append(p.text("display.console_key", url=url))
            else:
                lines.append(p.text("display.console_key_side", side=viewer.upper(), url=url))
            lines += qr_lines(url)
        where = "console_local" if is_loopback(self.address) else "console_network"
        lines.append(p.text(f"display.{where}", address=self.address))
        return lines

    def handle_private(self, *, on_cover: CoverHandler | None = None, on_check: CheckHandler | None = None) -> None:
        """What the key pages' private requests call: `on_cover(card)` covers a card when the rules
        allow it now (`Host.cover`), `on_check(word)` phrases the ruling on a clue word. The pages
        offer each only once it is given."""
        with self._lock:
            self._on_cover, self._on_check = on_cover, on_check
            self.show(self._game)

    def close(self) -> None:
        """Stop serving; safe to call twice."""
        self.hub.close()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=2)

    # ---- for the host and the tests ----------------------------------------------------------

    def key_url(self, viewer: str) -> str:
        return f"{self.url}key/{self.tokens.token(viewer)}"

    def drop_streams(self) -> None:
        """End every open event stream, as a restarted server would; the pages reconnect by themselves."""
        self.hub.drop_streams()

    # ---- inside ------------------------------------------------------------------------------

    def _cover(self, viewer: str, card: str) -> dict[str, Any] | None:
        """The spymasters' page chose a card to cover; whether it was covered is told to that page only."""
        with self._lock:
            handler, p = self._on_cover, self._prompts
        if handler is None or viewer != "spymasters":
            return None
        return cover_answer(card, handler(card), p)

    def _check(self, viewer: str, word: str) -> dict[str, Any] | None:
        with self._lock:
            handler = self._on_check
        return None if handler is None else {"text": handler(word)}

    def _publish(self) -> None:
        public = public_payload(self._view, self._words, self._said, self._timer)
        self.hub.publish(PUBLIC, encode(public))
        for viewer, key in self._keys.items():
            self.hub.publish(key_channel(viewer), encode(key_payload(public, key)))

    def _update_shell(self, view: dict[str, Any], viewers: tuple[str, ...]) -> None:
        """The page shells change only with the language or the edition (a new game at the table)."""
        shell = (view["lang"], view["edition"], viewers)
        if shell == self._shell:
            return
        p = self._prompts
        labels = page_labels(p)
        pages = {
            PUBLIC: render_page(
                lang=view["lang"], title=page_title(view, p), mode="board", events_url="/events", note="", labels=labels
            )
        }
        competitive = "competitive" in view
        panel = render_key_panel(
            speech=speech_lang(view["lang"]),
            teams={value: team(value, p) for value in ("red", "blue")} if competitive else {},
            questions={name: p.text(f"display.ask_{name}") for name in QUESTIONS[competitive]},
            labels=page_labels(p, KEY_LABELS),
        )
        for viewer in viewers:
            token = self.tokens.token(viewer)
            pages[key_channel(viewer)] = render_page(
                lang=view["lang"],
                title=page_title(view, p, viewer),
                mode="key",
                events_url=f"/key/{token}/events",
                note=key_note(viewer, p),
                labels=labels,
                private=panel,
            )
        self.site.update(pages, viewers)
        self._shell = shell
