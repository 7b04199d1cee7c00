"""The exact command that plays the same game by typing, written the way the player started this one:
`voicehost play ... --text`, or `make play ARGS="... --text"` when `make play` started it (the Makefile
says so in VOICEHOST_STARTED_BY). The no-microphone message gives it, so it can be run as printed."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from voicehost.cli.parser import VOICE_OPTIONS, build_parser

STARTED_BY: Final = "VOICEHOST_STARTED_BY"
""""make" when the Makefile's `make play` started the host."""


def play_by_text(argv: Sequence[str], program: str, environ: Mapping[str, str] | None = None) -> str:
    """`argv`: the command's words after the program (`play`, then its options, as typed); the options
    for playing by voice (refused with --text) are left out, the others kept as they were typed.
    `program`: the program as started (sys.argv[0]); `environ`: os.environ unless given."""
    words = [*_without_voice_options(list(argv[1:])), "--text"]
    if (os.environ if environ is None else environ).get(STARTED_BY) == "make":
        return f'make play ARGS="{_in_double_quotes(shlex.join(words))}"'
    return shlex.join([_program_name(program), "play", *words])


def _play_options() -> dict[str, argparse.Action]:
    """`voicehost play`'s options by every name they answer to."""
    commands = next(action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
    play: argparse.ArgumentParser = commands.choices["play"]
    return dict(play._option_string_actions)


def _without_voice_options(words: list[str]) -> list[str]:
    options = _play_options()
    kept: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            kept += words[index - 1 :]
            break
        name, equals, _ = word.partition("=")
        action = _option(options, name) if word.startswith("--") else None
        if action is None:
            kept.append(word)
            continue
        value = words[index : index + 1] if action.nargs != 0 and not equals else []
        index += len(value)
        if action.dest not in VOICE_OPTIONS:
            kept += [word, *value]
    return kept


def _option(options: dict[str, argparse.Action], name: str) -> argparse.Action | None:
    """The option `name` stands for, as argparse reads it: its whole name, or a prefix of one name only."""
    if name in options:
        return options[name]
    matches = {id(action): action for option, action in options.items() if option.startswith(name)}
    return next(iter(matches.values())) if len(matches) == 1 else None


def _program_name(program: str) -> str:
    """`voicehost` when that is what the PATH finds, else the path the player typed (`.venv/bin/voicehost`)."""
    if Path(program).name != "voicehost":
        return "voicehost"  # python -m voicehost, a test: the installed command's name
    found = shutil.which("voicehost")
    if found is not None and os.path.realpath(found) == os.path.realpath(program):
        return "voicehost"
    return program


def _in_double_quotes(text: str) -> str:
    """`text` as it must be written between the double quotes of ARGS="..." for the shell to give it back."""
    return "".join(f"\\{char}" if char in '"\\$`' else char for char in text)
