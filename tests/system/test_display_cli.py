"""`voicehost play --display web`: the board is served while the game goes on, on this machine's
local network address by default (phones reach the key pages), the key link reaches only the host's
console (stderr), which says which network a phone must be on, and the board page follows the game."""

from __future__ import annotations

import json
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from engine.lang import Lang
from voicehost.display.network import lan_address, table_address
from voicehost.display.qr import qr_lines
from voicehost.prompts import Prompts

ROOT = Path(__file__).resolve().parents[2]
EN = Prompts.load(Lang.EN)
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""No proxy from the environment: the board is on this machine's own network."""


def play_web(tmp_path: Path, *more: str) -> subprocess.Popen[str]:
    command = [
        sys.executable, "-m", "voicehost.cli", "play", "--text", "--board", str(ROOT / "tests/boards/classic-en.json"),
        "--save", str(tmp_path / "save.json"), "--display", "web", "--port", "0", *more,
    ]  # fmt: skip
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )


def console_until_key_link(process: subprocess.Popen[str]) -> list[str]:
    """The host's console lines up to the note on the network that follows the key link and its QR code
    (read on a thread: a host that never prints the note must fail the test, not hang it)."""
    stderr = process.stderr
    assert stderr is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in stderr], daemon=True).start()
    console: list[str] = []
    deadline = time.monotonic() + 20
    while not console or not any(word in console[-1] for word in ("network", "--host")):
        try:
            console.append(lines.get(timeout=max(0.0, deadline - time.monotonic())))
        except queue.Empty:
            raise AssertionError(f"no note on the network: {console}") from None
    return console


@pytest.mark.parametrize("host", [None, "127.0.0.1"])
def test_play_serves_the_board_where_phones_reach_it_and_keeps_the_key_link_off_the_announcements(
    tmp_path: Path, host: str | None
) -> None:
    expected = table_address() if host is None else host
    process = play_web(tmp_path, *(["--host", host] if host else []))
    assert process.stdin is not None
    try:
        process.stdin.write("arctic, two\nthe walrus\n")
        process.stdin.flush()
        console = console_until_key_link(process)
        board_url = re.search(r"http://([^/]+):(\d+)/", console[0])
        assert board_url and board_url.group(1) == expected, console
        key_line = next(line for line in console if "/key/" in line)
        key_url = key_line.rsplit(" ", 1)[1]
        assert key_url.startswith(board_url.group(0) + "key/")
        codes = console[console.index(key_line) + 1 : -1]
        assert codes == qr_lines(key_url), "the QR code carries the same link"
        note = "console_local" if expected == "127.0.0.1" else "console_network"
        assert console[-1] == EN.text(f"display.{note}", address=expected)
        state: dict[str, object] = {}
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with DIRECT.open(board_url.group(0) + "state", timeout=5) as response:
                state = json.loads(response.read())
            if "WALRUS" in json.dumps(state) and "arctic" in json.dumps(state).lower() and "blue" in json.dumps(state):
                break
            time.sleep(0.05)
        assert "WALRUS" in json.dumps(state)
        with DIRECT.open(key_url + "/state", timeout=5) as response:  # what a phone at the table opens
            assert len(json.loads(response.read())["key"]["identities"]) == 25
    finally:
        out, _ = process.communicate("", timeout=20)
    assert process.returncode == 0
    assert "/key/" not in out, "the key link must never be announced"
    assert "WALRUS: a blue agent" in out


def test_the_local_network_address_is_found_without_sending_anything() -> None:
    """Here the machine has a network: the display's default is its address there, not 127.0.0.1."""
    found = lan_address()
    if found is None:
        pytest.skip("this machine has no network route")
    assert table_address() == found and found != "127.0.0.1"


def test_without_any_network_it_listens_on_this_machine_and_says_so(tmp_path: Path) -> None:
    """A machine with no network at all (a fresh network namespace: only a loopback): the display falls back
    to 127.0.0.1, and the console says that phones cannot reach it and what to do."""
    isolated = ["unshare", "--user", "--map-root-user", "--net"]
    if shutil.which("unshare") is None or subprocess.run([*isolated, "true"], capture_output=True).returncode != 0:
        pytest.skip("needs unshare and user namespaces to cut the network off")
    command = [
        *isolated, sys.executable, "-m", "voicehost.cli", "play", "--text", "--board",
        str(ROOT / "tests/boards/classic-en.json"), "--save", str(tmp_path / "save.json"), "--display", "web",
        "--port", "0",
    ]  # fmt: skip
    ran = subprocess.run(command, input="", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert re.search(r"^Board for everyone: http://127\.0\.0\.1:\d+/$", ran.stderr, re.MULTILINE), ran.stderr
    assert EN.text("display.console_local", address="127.0.0.1") in ran.stderr.splitlines()
    assert "Traceback" not in ran.stderr
