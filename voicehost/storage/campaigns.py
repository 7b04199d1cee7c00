"""Duet mission-map progress, kept per team in one file beside the saved games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from engine.errors import GameError
from engine.missions import Campaign
from voicehost.storage.atomic import write_atomically
from voicehost.storage.documents import CampaignsDocument, DocumentError, check
from voicehost.storage.errors import StorageError
from voicehost.storage.paths import campaigns_path
from voicehost.storage.reading import MiB, load_json

MAX_CAMPAIGNS_BYTES: Final = 4 * MiB

__all__ = ["campaigns_path", "load_campaign", "save_campaign"]


def _read(path: Path) -> dict[str, Any]:
    """The campaigns file checked (StorageError when it is damaged: it is never overwritten then)."""
    if not path.exists():
        return {"teams": []}
    data = load_json(path, MAX_CAMPAIGNS_BYTES, "campaigns file")
    try:
        check(CampaignsDocument, data)
    except DocumentError as exc:
        raise StorageError(
            f"the campaigns file {path} is damaged: {exc}. Move it away to start the map again"
        ) from None
    assert isinstance(data, dict)
    return data


def load_campaign(team: str, path: Path | None = None) -> Campaign:
    """The team's progress (a new campaign when the team has none); a damaged file is refused."""
    path = path or campaigns_path()
    for item in _read(path).get("teams", []):
        if item.get("team") == team:
            try:
                return Campaign.from_dict(item)
            except GameError as exc:
                raise StorageError(f"the campaigns file {path} is damaged: {exc}") from None
    return Campaign(team)


def save_campaign(campaign: Campaign, path: Path | None = None) -> None:
    path = path or campaigns_path()
    teams = [item for item in _read(path).get("teams", []) if item.get("team") != campaign.team]
    teams.append(campaign.to_dict())
    write_atomically(path, json.dumps({"teams": sorted(teams, key=lambda t: t["team"])}, ensure_ascii=False, indent=1))
