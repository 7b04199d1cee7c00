"""The secrets in the private key pages' addresses: unguessable, compared in constant time."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from typing import Final

VIEWERS: Final = ("spymasters", "a", "b")
"""Competitive games have one key page the two spymasters share (they share one key card at the
table); Duet has one page per player, each showing only that player's side of the key."""
TOKEN_BYTES: Final = 18
"""144 random bits: 24 characters in the address, short enough for a small QR code."""


class KeyTokens:
    """One token per viewer, made once per display: a new game at the table keeps the same links."""

    def __init__(self) -> None:
        self._tokens = {viewer: secrets.token_urlsafe(TOKEN_BYTES) for viewer in VIEWERS}

    def token(self, viewer: str) -> str:
        return self._tokens[viewer]

    def viewer(self, candidate: str, active: Iterable[str]) -> str | None:
        """Whose token `candidate` is, among the viewers of the current game; None for anything else.

        Every token is compared, with `hmac.compare_digest`, so the time taken tells nothing.
        """
        wanted = candidate.encode("utf-8", "surrogateescape")
        allowed = set(active)
        found = None
        for viewer, token in self._tokens.items():
            if hmac.compare_digest(wanted, token.encode("ascii")) and viewer in allowed:
                found = viewer
        return found
