"""Keeps a game safe while it is played: the save after every event, the public events log, the map.

Honest about it: when a write fails (a full disk, a folder that cannot be written) the players are
told once that the game is NOT saved and where it could not be written; every later event tries
again, and they are told when it is saved again. `saved` says whether the last event reached the
disk, so quitting can say the truth (and the command exit 1 when it did not).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engine.editions import AnyGame
from engine.events import Event, EventType
from engine.missions import Campaign
from voicehost.storage.campaigns import save_campaign
from voicehost.storage.errors import StorageError, describe, reason_key
from voicehost.storage.events_log import EventLog
from voicehost.storage.saves import save_game


class Session:
    """The `on_events` hook of the host: write the save, append the log, survive a full disk."""

    def __init__(
        self,
        save_path: Path,
        log: EventLog | None,
        settings: dict[str, Any],
        *,
        on_failure: Callable[[str, Path, str], None],
        on_recovery: Callable[[str], None],
        campaign: Campaign | None = None,
    ) -> None:
        self.save_path = save_path
        self.settings = settings
        self.log = log
        self.campaign = campaign
        self.failures: dict[str, OSError] = {}  # "save" or "log": why the last write of it failed
        self._on_failure = on_failure
        self._on_recovery = on_recovery
        self._game: AnyGame | None = None

    @property
    def saved(self) -> bool:
        """Everything asked for is on disk: the save, and the events log when there is one."""
        return not self.failures

    @property
    def failure(self) -> str | None:
        """What is not on disk and why, for the console (English); None when everything is."""
        said = [f"the {what} ({describe(exc, self._place(what, exc))})" for what, exc in self.failures.items()]
        return "; ".join(said) or None

    @property
    def failed_at(self) -> tuple[Path, str] | None:
        """Where the game itself could not be saved, and why (an os_reason key); None when it is saved."""
        exc = self.failures.get("save")
        return None if exc is None else (self._place("save", exc), reason_key(exc))

    def __call__(self, game: AnyGame, events: Sequence[Event]) -> None:
        if self._game is not None and game is not self._game and self.log is not None:
            self.log.new_game()  # "new game" at the table: its seq starts again at 1 in the same file
        self._game = game
        self._attempt("save", lambda: self._save(game, events))
        if self.log is not None and "save" not in self.failures:
            # Every event of the game, not only this batch: the log skips what it holds and catches up
            # with what a full disk kept out. Written after the save, so the log is never ahead of
            # what a --resume replays.
            log = self.log
            self._attempt("log", lambda: log.append(game.events))

    def _attempt(self, what: str, write: Callable[[], None]) -> None:
        """One write, with the players told once when it starts failing and once when it works again."""
        try:
            write()
        except OSError as exc:
            failed_before = what in self.failures
            self.failures[what] = exc
            if not failed_before:  # said once, not after every event
                self._on_failure(what, self._place(what, exc), reason_key(exc))
            return
        if self.failures.pop(what, None) is not None:
            self._on_recovery(what)

    def _save(self, game: AnyGame, events: Sequence[Event]) -> None:
        save_game(self.save_path, game, self.settings)
        self._record_campaign(game, events)

    def _place(self, what: str, exc: OSError) -> Path:
        """The file the players know: the save (not its temporary twin), the events log, the map."""
        named = Path(exc.filename) if isinstance(exc.filename, str) else None
        if what == "log" and self.log is not None:
            return self.log.path
        temporary = (f".{self.save_path.name}.", f".{Path(os.path.realpath(self.save_path)).name}.")
        if named is None or named.name.startswith(temporary):
            return self.save_path
        return named

    def first_save(self, game: AnyGame) -> None:
        """Before the game starts: a place where nothing can be written is refused (StorageError), so
        nobody plays a game that is not kept."""
        self._game = game
        try:
            self._save(game, game.events)
            if self.log is not None:
                self.log.append(game.events)
        except OSError as exc:
            raise StorageError(
                f"the game cannot be saved: {describe(exc, self._place('save', exc))}. "
                "Free some space, or choose another place with --save"
            ) from None

    def _record_campaign(self, game: AnyGame, events: Sequence[Event]) -> None:
        """A won Duet game moves the team along the mission map (the 9-token game opens Praga); only a
        Duet game has a campaign (`--team`)."""
        if self.campaign is None:
            return
        won = any(event.type is EventType.GAME_OVER and event["winner"] == "players" for event in events)
        if won and self.campaign.record_win(game.variants.mission, game.variants.duet_tokens):
            save_campaign(self.campaign)

    def close(self) -> None:
        if self.log is not None:
            self.log.close()
