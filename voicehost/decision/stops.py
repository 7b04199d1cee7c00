"""A player's "stop" over the host's own voice: the words read as the stop command, or a stop phrase
that explains the audio about as well as the free transcript does (its own echo is heard there all the
time, and a lone short word is what Whisper hears worst: "para" comes out "pátor")."""

from __future__ import annotations

from typing import Final

from voicehost.ears.heard import Heard
from voicehost.understanding import Command, HeardCommand
from voicehost.understanding.reading import Reading

STOP_GAP: Final = 2.0
"""A stop phrase is taken when it explains the audio within this many nats of the free transcript."""


def is_stop(heard: Heard, reading: Reading) -> bool:
    """Whether a player said "stop" (or the language's other stop phrases) over the host."""
    said = reading.said
    if isinstance(said, HeardCommand) and said.command is Command.STOP_TALKING:
        return True
    stops, whole = heard.commands, heard.transcript_logprob
    return stops is not None and whole is not None and bool(stops.logprobs) and whole - stops.logprobs[0] <= STOP_GAP
