"""One host per game: a lock beside the save, held while a host plays it.

`fcntl.flock` on `<save>.lock`: the kernel drops it when the process ends however it ends (a crash,
kill -9), so a stale lock never blocks a resume. The lock file holds who holds it (process id, host
name, since when), so a second host is refused with a message that names the first.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import stat
import time
from pathlib import Path
from types import TracebackType

from voicehost.storage.errors import InUse, StorageError, os_reason


def lock_path(path: Path) -> Path:
    """Beside the file itself: a save reached through a symbolic link is locked where its data is, so two
    hosts cannot play it through two names."""
    real = Path(os.path.realpath(path))
    return real.with_name(real.name + ".lock")


class GameLock:
    """Held from `acquire` to `release`; raises InUse when another process holds it."""

    def __init__(self, path: Path, what: str = "game") -> None:
        self.path = lock_path(path)
        self.what = what
        self._fd: int | None = None

    def acquire(self) -> GameLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # never through a link, never a device or a pipe: the lock file is emptied and written below
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise StorageError(
                    f"the {self.what} cannot be locked: {self.path} is a symbolic link, not a lock file of "
                    "voicehost; nothing was changed. Remove the link, or choose another file"
                ) from None
            raise StorageError(f"the {self.what} cannot be locked at {self.path}: {os_reason(exc)}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise StorageError(
                f"the {self.what} cannot be locked: {self.path} is not a regular file (a device or a pipe); "
                "nothing was changed. Remove it, or choose another file"
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise InUse(
                f"the {self.what} {self.path.with_suffix('').name} is being played by another voicehost "
                f"({holder}); end that one first, or choose another file"
            ) from None
        except OSError as exc:
            os.close(fd)
            raise StorageError(f"the {self.what} cannot be locked at {self.path}: {os_reason(exc)}") from None
        with contextlib.suppress(OSError):  # who holds it is a courtesy: a full disk must not stop the game
            os.ftruncate(fd, 0)
            os.write(fd, f"process {os.getpid()} on {socket.gethostname()}, since {time.strftime('%H:%M')}".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing drops the flock; the empty file stays (removing it would race a new holder)

    def __enter__(self) -> GameLock:
        return self.acquire()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _holder(fd: int) -> str:
    with contextlib.suppress(OSError):
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
        if text:
            return text
    return "another process"
