"""Diagnostics (`voicehost/diagnostics.py`): a command run again in one process writes to the standard
error it has now, never to one closed by the run before (a "Logging error" traceback on a player's screen)."""

from __future__ import annotations

import io
import logging

import pytest

from voicehost.diagnostics import HEARD, configure


def test_configured_again_the_lines_go_to_the_standard_error_of_now(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stderr", first)
    configure(show_heard=True)
    logging.getLogger(HEARD).info("[heard] one")
    first.close()
    monkeypatch.setattr("sys.stderr", second)
    configure(show_heard=True)
    logging.getLogger(HEARD).info("[heard] two")
    assert second.getvalue() == "[heard] two\n"
