"""scripts/system-packages, the first step of `make play` and `make test`: silent when the Debian packages
are there, apt as root, else the one command to run and a stop before anything else is installed.

dpkg, apt and id are fakes here (the real run is a clean Debian root, see the README's Development)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "system-packages"

FAKES = {
    "dpkg-query": 'for p in $FAKE_INSTALLED; do [ "$p" = "${@: -1}" ] && echo "install ok installed" && exit; done\n'
    "exit 1",
    "apt-cache": 'for p in $FAKE_KNOWN; do [ "$p" = "${@: -1}" ] && exit 0; done\nexit 100',
    "apt-get": 'echo "apt-get $*" >>"$FAKE_LOG"',
    "id": 'echo "$FAKE_UID"',
}


def run(tmp_path: Path, *packages: str, installed: str = "", known: str = "", uid: int = 1000) -> tuple[int, str, str]:
    fakes = tmp_path / "bin"
    fakes.mkdir(exist_ok=True)
    for name, body in FAKES.items():
        (fakes / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (fakes / name).chmod(0o755)
    log = tmp_path / "apt.log"
    log.touch()
    env = {
        **os.environ,
        "PATH": f"{fakes}:{os.environ['PATH']}",
        "FAKE_INSTALLED": installed,
        "FAKE_KNOWN": known,
        "FAKE_UID": str(uid),
        "FAKE_LOG": str(log),
    }
    result = subprocess.run(["bash", str(SCRIPT), *packages], capture_output=True, text=True, env=env, check=False)
    return result.returncode, result.stderr, log.read_text()


def test_silent_when_everything_is_installed(tmp_path: Path) -> None:
    assert run(tmp_path, "espeak-ng", "libportaudio2", installed="libportaudio2 espeak-ng") == (0, "", "")


def test_a_user_is_given_one_command_and_nothing_is_installed(tmp_path: Path) -> None:
    code, said, apt = run(tmp_path, "python3-venv", "espeak-ng", "libportaudio2", installed="python3-venv")
    assert (code, apt) == (1, "")
    commands = [line.strip() for line in said.splitlines() if "sudo" in line]
    assert commands == ["sudo apt-get install espeak-ng libportaudio2"]


def test_root_installs_only_what_is_missing(tmp_path: Path) -> None:
    code, _, apt = run(tmp_path, "espeak-ng", "libportaudio2", installed="espeak-ng", known="libportaudio2", uid=0)
    assert code == 0
    assert apt.splitlines() == ["apt-get update -qq", "apt-get install -y -qq --no-install-recommends libportaudio2"]


def test_packages_from_contrib_are_installed_by_this_script_as_root(tmp_path: Path) -> None:
    code, said, apt = run(tmp_path, "--contrib", "sox", "rhvoice", known="sox")
    assert (code, apt) == (1, "")
    commands = [line.strip() for line in said.splitlines() if "sudo" in line]
    assert commands == [f"sudo {SCRIPT} --contrib sox rhvoice"]


@pytest.mark.parametrize("uid", [0, 1000])
def test_packages_apt_knows_need_no_extra_sources(tmp_path: Path, uid: int) -> None:
    code, said, apt = run(tmp_path, "--contrib", "sox", "rhvoice", known="sox rhvoice", uid=uid)
    if uid:
        assert [line.strip() for line in said.splitlines() if "sudo" in line] == ["sudo apt-get install sox rhvoice"]
    else:
        assert (code, apt.splitlines()[-1]) == (0, "apt-get install -y -qq --no-install-recommends sox rhvoice")
