"""What can go wrong with a Wyoming satellite, as data (a prompt key and its fields), and what the table
is told about it.

The link runs below the game and knows no language; `told` turns what it reports into the game's
language with `voicehost/prompts/<lang>.toml`, table `[satellite]`. No exception's name or text ever
reaches a player: every way a satellite can fail is one of these keys.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import Final

from voicehost.prompts import Prompts

# Why a connection ended or could not be made (`satellite.why_*`).
CLOSED: Final = "why_closed"  # it closed the connection
BROKEN: Final = "why_broken"  # the connection broke (reset, network gone)
SILENT: Final = "why_silent"  # seconds: no sound for that long, after it had streamed
NO_ANSWER: Final = "why_no_answer"  # seconds: it answered pings, then stopped answering
REFUSED: Final = "why_refused"  # nothing listens on that port
TIMEOUT: Final = "why_timeout"  # seconds: no answer when connecting
UNKNOWN_HOST: Final = "why_unknown_host"  # host: the name does not resolve
NETWORK: Final = "why_network"  # any other network failure
NOT_SATELLITE: Final = "why_not_satellite"  # a Wyoming service, but no satellite
TOO_LARGE: Final = "why_too_large"  # size, limit: one message bigger than any satellite sends
MALFORMED: Final = "why_malformed"  # not a Wyoming message
BAD_RATE: Final = "why_rate"  # rate, low, high
BAD_WIDTH: Final = "why_width"  # width
BAD_CHANNELS: Final = "why_channels"  # channels, most

# Why a satellite that answers gives no sound: told once, in full, with what to do (`satellite.*`).
BUSY: Final = "busy"  # it described itself, then sent nothing: another server holds it
NOT_STREAMING: Final = "not_streaming"  # it is ours (it answered) but streams nothing: wake word or VAD


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a satellite: `key` in the prompts' [satellite] table, and its fields."""

    key: str
    params: dict[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True)
class SatelliteLost:
    """The satellite stopped sending sound or went away: the game pauses until it is back."""

    name: str
    problem: Problem


@dataclass(frozen=True)
class SatelliteNotice:
    """The satellite answers but gives no sound we can hear (busy, not streaming, a format refused):
    told once, with what to do, until its sound arrives."""

    name: str
    problem: Problem


def why(prompts: Prompts, problem: Problem) -> str:
    """The reason alone ("it closed the connection"), in the game's language."""
    return prompts.text(f"satellite.{problem.key}", **problem.params)


def told(prompts: Prompts, report: SatelliteLost | SatelliteNotice) -> str:
    """What the table is told about a satellite's trouble, in the game's language."""
    problem = report.problem
    if isinstance(report, SatelliteLost):
        return prompts.text("satellite.stopped", name=report.name, why=why(prompts, problem))
    if problem.key in (BUSY, NOT_STREAMING):
        return prompts.text(f"satellite.{problem.key}", name=report.name)
    return prompts.text("satellite.refused", name=report.name, why=why(prompts, problem))


def network_problem(exc: BaseException, host: str, seconds: float) -> Problem:
    """Why connecting failed, from the OS's error, in words a player understands."""
    if isinstance(exc, ConnectionRefusedError):
        return Problem(REFUSED)
    if isinstance(exc, socket.gaierror):
        return Problem(UNKNOWN_HOST, {"host": host})
    if isinstance(exc, TimeoutError):
        return Problem(TIMEOUT, {"seconds": f"{seconds:g}"})
    if isinstance(exc, ConnectionError | EOFError):
        return Problem(CLOSED)
    return Problem(NETWORK)
