"""One place that turns whatever stops a command into a player's message and an exit code.

0: done; 1: a game, file or device problem, explained on stderr; 2: bad usage (argparse's own).
No traceback reaches a player: an unexpected error is written to a crash report in the data folder
and the message says where it is and that the game was saved after its last move.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Final

from engine.characters import shown
from engine.errors import GameError
from voicehost.audio.samples import AudioError
from voicehost.storage.errors import StorageError, describe
from voicehost.storage.paths import data_dir

EXIT_OK: Final = 0
EXIT_ERROR: Final = 1
EXIT_USAGE: Final = 2


class UserError(Exception):
    """Something the player must fix (a missing file, a bad board): printed, exit code 1."""


class UsageError(Exception):
    """Options that cannot go together, found once a file was read (a Duet flag on a classic board): exit 2."""


def explained(exc: BaseException) -> str | None:
    """The message for an error a player can act on; None for a bug."""
    from voicehost.display import DisplayError
    from voicehost.frontends.devices import DeviceError
    from voicehost.mouth import SpeechError
    from voicehost.speech_models import ModelError

    if isinstance(exc, UserError | StorageError | ModelError | DeviceError | SpeechError | DisplayError | AudioError):
        return str(exc)
    if isinstance(exc, GameError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"cannot go on: {describe(exc)}"
    if isinstance(exc, MemoryError):
        return "out of memory: the input is far too large"
    return None


def run(command: Callable[[], int], *, printed: Callable[[str], None] | None = None) -> int:
    """Run a command; every way it can end becomes an exit code and at most one line on stderr."""
    say = printed or _stderr
    try:
        return command()
    except BrokenPipeError:
        _silence_stdout()  # `voicehost ... | head -1`: the reader left; nothing more to say to it
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
    except UsageError as exc:
        say(f"voicehost: {shown(str(exc))}")
        return EXIT_USAGE
    except Exception as exc:
        message = explained(exc)
        if message is None:
            message = _crash_report(exc)
        say(f"voicehost: {shown(message)}")  # a path or a file's contents may hold control characters
        return EXIT_ERROR


def _stderr(text: str) -> None:
    with contextlib.suppress(OSError):
        print(text, file=sys.stderr, flush=True)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so Python's own flush at exit does not fail a second time."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _crash_report(exc: BaseException) -> str:
    """A bug: the traceback goes to a file for whoever fixes it, the player gets one sentence."""
    text = "".join(traceback.format_exception(exc))
    where = "nowhere (the data folder cannot be written)"
    with contextlib.suppress(OSError):
        folder = data_dir() / "crash-reports"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / time.strftime("crash-%Y%m%d-%H%M%S.txt")
        path.write_text(text, encoding="utf-8")
        where = str(path)
    return (
        f"something went wrong inside voicehost ({type(exc).__name__}). The game was saved after its last move "
        f"and can be resumed with: voicehost play --resume SAVE. A report for the developers is in {where}"
    )
