"""What a test wants to know of an understanding, whatever its intent (None when it has no such part)."""

from __future__ import annotations

from voicehost.understanding import Candidate, Command, HeardClue, HeardCommand, HeardGuess, SpokenClue, Understanding


def command_of(heard: Understanding) -> Command | None:
    return heard.command if isinstance(heard, HeardCommand) else None


def card_of(heard: Understanding) -> str | None:
    return heard.card if isinstance(heard, HeardGuess) else None


def clue_of(heard: Understanding) -> SpokenClue | None:
    return heard.clue if isinstance(heard, HeardClue) else None


def candidates_of(heard: Understanding) -> tuple[Candidate, ...]:
    return heard.candidates if isinstance(heard, HeardGuess) else ()
