"""Duet mission-map progress, kept per team in one file beside the saved games."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.errors import NotAllowedInThisGame
from engine.missions import Campaign
from voicehost.storage.saves import write_atomically


def campaigns_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "voicehost" / "campaigns.json"


def load_campaign(team: str, path: Path | None = None) -> Campaign:
    """The team's progress (a new campaign when the team has none); a broken file is refused."""
    path = path or campaigns_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Campaign(team)
    except (OSError, json.JSONDecodeError) as exc:
        raise NotAllowedInThisGame(detail=f"the campaign file {path} cannot be read ({exc})") from None
    for item in data.get("teams", []):
        if item.get("team") == team:
            return Campaign.from_dict(item)
    return Campaign(team)


def save_campaign(campaign: Campaign, path: Path | None = None) -> None:
    path = path or campaigns_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        data = {"teams": []}
    teams = [item for item in data.get("teams", []) if item.get("team") != campaign.team]
    teams.append(campaign.to_dict())
    write_atomically(path, json.dumps({"teams": sorted(teams, key=lambda t: t["team"])}, ensure_ascii=False, indent=1))
