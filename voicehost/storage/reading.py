"""Reading the files players give the host, bounded: a device, a folder, a huge or endless file, or a
document nested a hundred thousand levels deep is refused with a reason, never read into memory."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Final

from voicehost.storage.errors import StorageError, os_reason

MiB: Final = 1 << 20
MAX_NESTING: Final = 64
"""Deeper JSON than this is not a file voicehost wrote (its deepest is four levels)."""


def read_bytes(path: Path, limit: int, what: str) -> bytes:
    """The whole file, when it is a regular file of at most `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise StorageError(f"there is no {what} at {path}") from None
    except OSError as exc:
        raise StorageError(f"the {what} {path} cannot be read: {os_reason(exc)}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise StorageError(f"{path} is a folder, not a {what}")
        if not stat.S_ISREG(info.st_mode):
            raise StorageError(f"{path} is not a regular file (a device or a pipe), so it cannot be a {what}")
        if info.st_size > limit:
            raise StorageError(
                f"{path} is too large for a {what} ({info.st_size // 1024} KB; at most {limit // 1024} KB)"
            )
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise StorageError(f"the {what} {path} cannot be read: {os_reason(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise StorageError(f"{path} is too large for a {what} (more than {limit // 1024} KB)")
    return data


def read_text(path: Path, limit: int, what: str) -> str:
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise StorageError(f"{path} is not a {what}: it is not UTF-8 text") from None


def parse_json(text: str, where: str, what: str) -> Any:
    """JSON that a person or voicehost wrote; too deep nesting is refused before the parser recurses."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:  # a cheap scan: brackets outside strings
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_NESTING:
                raise StorageError(f"{where} is not a {what}: it is nested more than {MAX_NESTING} levels deep")
        elif char in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StorageError(f"{where} is not a {what}: broken JSON at line {exc.lineno}, column {exc.colno}") from None
    except (RecursionError, ValueError) as exc:
        raise StorageError(f"{where} is not a {what}: {exc}") from None


def load_json(path: Path, limit: int, what: str) -> Any:
    return parse_json(read_text(path, limit, what), str(path), what)
