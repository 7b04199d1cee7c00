"""Keeps a game safe while it is played: the save after every event, the public events log."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engine.editions import AnyGame
from engine.events import Event, EventType
from engine.missions import Campaign
from voicehost.storage.campaigns import save_campaign
from voicehost.storage.saves import EventLog, save_game


class Session:
    """The `on_events` hook of the host: write the save, append the log, survive a full disk."""

    def __init__(
        self,
        save_path: Path,
        events_path: Path | None,
        settings: dict[str, Any],
        warn: Callable[[str], None],
        campaign: Campaign | None = None,
    ) -> None:
        self.save_path = save_path
        self.settings = settings
        self.log = EventLog(events_path) if events_path else None
        self._warn = warn
        self._failing = False
        self._game: AnyGame | None = None
        self.campaign = campaign

    def __call__(self, game: AnyGame, events: Sequence[Event]) -> None:
        if self._game is not None and game is not self._game and self.log is not None:
            self.log.new_game()  # "new game" at the table: its seq starts again at 1 in the same file
        self._game = game
        try:
            save_game(self.save_path, game, self.settings)
            self._record_campaign(game, events)
            if self.log is not None:
                # Every event of the game, not only this batch: the log skips what it holds and
                # catches up with what a full disk kept out. Written after the save, so the log
                # is never ahead of what a --resume replays.
                self.log.append(game.events)
            self._failing = False
        except OSError as exc:
            if not self._failing:  # say it once, not after every event
                self._warn(exc.strerror or str(exc))
            self._failing = True

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
