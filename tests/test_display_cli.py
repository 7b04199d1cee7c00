"""`voicehost play --display web`: the board is served while the game goes on, the key link reaches
only the host's console (stderr), and the board page follows the game."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_play_serves_the_board_and_keeps_the_key_link_off_the_announcements(tmp_path: Path) -> None:
    command = [
        sys.executable, "-m", "voicehost.cli", "play", "--text", "--board", str(ROOT / "tests/boards/classic-en.json"),
        "--save", str(tmp_path / "save.json"), "--display", "web", "--port", "0",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stdin is not None and process.stderr is not None
    try:
        process.stdin.write("arctic, two\nthe walrus\n")
        process.stdin.flush()
        console = ""
        deadline = time.monotonic() + 20
        while "/key/" not in console and time.monotonic() < deadline:
            console += process.stderr.readline()
        board_url = re.search(r"http://127\.0\.0\.1:\d+/", console)
        assert board_url, console
        state: dict[str, object] = {}
        while time.monotonic() < deadline:
            with urllib.request.urlopen(board_url.group(0) + "state", timeout=5) as response:
                state = json.loads(response.read())
            if "WALRUS" in json.dumps(state) and "arctic" in json.dumps(state).lower() and "blue" in json.dumps(state):
                break
            time.sleep(0.05)
        assert "WALRUS" in json.dumps(state)
    finally:
        out, _ = process.communicate("", timeout=20)
    assert process.returncode == 0
    assert "/key/" not in out, "the key link must never be announced"
    assert "WALRUS: a blue agent" in out
