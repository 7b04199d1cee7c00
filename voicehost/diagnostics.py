"""Diagnostics through the logging module: what a developer or an organizer may want to see, never
what a player must be told (that is said, in the game's language, by the host or the command).

`voicehost play --show-heard` shows what the ears heard and what the host made of it (the
`voicehost.heard` logger); `--debug` shows everything, library failures with their details included.
"""

from __future__ import annotations

import logging
import sys
from typing import Final

HEARD: Final = "voicehost.heard"
"""The logger of what the ears heard and what the host made of it (`--show-heard`)."""


def configure(*, debug: bool = False, show_heard: bool = False) -> None:
    """One handler on standard error for voicehost's loggers: warnings always, the ears' lines with
    --show-heard, everything with --debug."""
    root = logging.getLogger("voicehost")
    for old in [handler for handler in root.handlers if getattr(handler, "voicehost", False)]:
        # a command run again in one process: today's standard error, not a closed one (never
        # flushed: setStream would flush the old stream, and a closed one raises)
        root.removeHandler(old)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.voicehost = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.propagate = False
    root.setLevel(logging.DEBUG if debug else logging.WARNING)
    logging.getLogger(HEARD).setLevel(logging.DEBUG if debug or show_heard else logging.WARNING)
