"""Why a file the host reads or writes cannot be used, in words a player can act on."""

from __future__ import annotations

import errno
from pathlib import Path


class StorageError(Exception):
    """A file that cannot be read or written; the message says which, why, and what to do."""


class SaveError(StorageError):
    """A save file that cannot be used (missing, damaged, from another program, out of range)."""


class InUse(StorageError):
    """Another voicehost is playing this game now."""


def os_reason(exc: OSError) -> str:
    """An operating-system error as a player reads it: what happened, not an errno."""
    reasons = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is used up",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EROFS: "the disk is read-only",
        errno.EISDIR: "it is a folder",
        errno.ENOTDIR: "a part of the path is not a folder",
        errno.ENOENT: "no such file or folder",
        errno.ENAMETOOLONG: "the name is too long",
        errno.EIO: "the disk reported an input/output error",
        errno.EMFILE: "too many files are open",
        errno.EADDRINUSE: "the port is already in use",
        errno.EADDRNOTAVAIL: "that address is not on this machine",
        errno.EPIPE: "the output was closed",
    }
    if exc.errno in reasons:
        return reasons[exc.errno]
    return (exc.strerror or str(exc) or type(exc).__name__).lower()


REASON_KEYS = {
    errno.ENOSPC: "disk_full",
    errno.EDQUOT: "quota",
    errno.EACCES: "permission",
    errno.EPERM: "permission",
    errno.EROFS: "read_only",
    errno.EISDIR: "is_folder",
    errno.ENOTDIR: "not_folder",
    errno.ENOENT: "missing",
    errno.ENAMETOOLONG: "name_too_long",
    errno.EIO: "io_error",
    errno.EMFILE: "too_many_files",
}
"""The same reasons, as keys of the prompts' [os_reason] table: said in the game's language."""


def reason_key(exc: OSError) -> str:
    return REASON_KEYS.get(exc.errno or 0, "other")


def describe(exc: OSError, path: Path | str | None = None) -> str:
    """'cannot write /x/game.json: the disk is full'-style text for any OSError."""
    where = path if path is not None else exc.filename
    return f"{where}: {os_reason(exc)}" if where else os_reason(exc)
