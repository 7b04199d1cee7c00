"""The command line: every option typed and bounded, and flags that cannot go together refused (exit 2).

A flag that would be silently ignored is refused with the reason, so what a player asked for is what
happens: `--lang` on a resumed game, `--starting` in Duet, `--text` with a recording, and so on.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from engine.lang import Lang
from engine.pieces import Edition

DEFAULT_PORT: Final = 8080
TIMER_RANGE: Final = (5, 3600)
"""A sand timer shorter than 5 s is over before its countdown is said; longer than an hour is no timer."""
MAX_DIGITS: Final = 20
"""Longer numbers are typing accidents, refused before Python turns them into integers."""
SEED_LIMIT: Final = 2**63


def _whole(text: str) -> int:
    stripped = text.strip()
    if len(stripped.lstrip("+-")) > MAX_DIGITS or not stripped.lstrip("+-").isdigit():
        raise argparse.ArgumentTypeError(f"{text[:30]!r} is not a whole number")
    return int(stripped)


def bounded(low: int, high: int, what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = _whole(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} must be from {low} to {high}, not {value}")
        return value

    parse.__name__ = what
    return parse


def file_path(text: str) -> Path:
    """A file the player names: not empty, no NUL byte, and a name, not a folder ("/", ".", "..")."""
    if not text.strip() or "\x00" in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a file name")
    path = Path(text)
    if path.name in ("", ".", "..") or text.endswith("/"):
        raise argparse.ArgumentTypeError(f"{text} is a folder: give a file's name")
    return path


def earpiece_target(text: str) -> str:
    """--key-audio: a sound output's index or name, or a WAV file's (not empty, no NUL byte)."""
    if not text.strip() or "\x00" in text:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a sound output nor a file name")
    return text


def folder_path(text: str) -> Path:
    """A folder the player names (a model's)."""
    if not text.strip() or "\x00" in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder name")
    return Path(text)


def host_port(text: str) -> tuple[str, int]:
    """HOST:PORT (a name, an IPv4 address, or an IPv6 one in brackets), tcp:// allowed in front."""
    address = text.strip().removeprefix("tcp://")
    host, _, port = address.rpartition(":")
    host = host.removeprefix("[").removesuffix("]") if host.startswith("[") else host
    if not host or "\x00" in host or any(ch.isspace() for ch in host) or (":" in host and "[" not in address):
        raise argparse.ArgumentTypeError(f"{text[:60]!r} is not HOST:PORT (for example 192.168.1.20:10700)")
    return host, bounded(1, 65535, "the port")(port)


def satellite(text: str) -> tuple[str, int] | str:
    """--satellite: HOST:PORT, or the name a satellite gives itself (no port), looked up on the network."""
    if ":" in text:
        return host_port(text)
    name = " ".join(text.split())
    if not name or len(name) > 60 or not name.isprintable():
        raise argparse.ArgumentTypeError(f"{text[:60]!r} is neither HOST:PORT nor a satellite's name")
    if all(part.isdigit() for part in name.split(".")):
        raise argparse.ArgumentTypeError(f"{text!r} needs its port: HOST:PORT (for example {name}:10700)")
    return name


def host_name(text: str) -> str:
    """A name the players call the host by: one to three words of letters, at most 40 characters."""
    words = text.split()
    if (
        not 1 <= len(words) <= 3
        or len(text) > 40
        or not all(w.replace("-", "").replace("'", "").isalpha() for w in words)
    ):
        raise argparse.ArgumentTypeError(f"{text!r} cannot be the host's name: say one to three words of letters")
    return " ".join(words)


def _lang(text: str) -> Lang:
    try:
        return Lang.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _grid(text: str) -> str:
    if text not in ("5x5", "5x4"):
        raise argparse.ArgumentTypeError("the grid is 5x5 or 5x4")
    return text


def add_deal_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--edition", choices=[e.value for e in Edition], default=None)
    parser.add_argument("--lang", type=_lang, default=None, help="pt-BR, pt-PT, it or en (default: the system's)")
    parser.add_argument(
        "--seed",
        type=bounded(-SEED_LIMIT, SEED_LIMIT - 1, "the seed"),
        default=None,
        help="the same seed deals the same board",
    )
    parser.add_argument("--grid", type=_grid, default=None, help="5x5 or 5x4 (mix words and pictures freely)")
    parser.add_argument("--deck", choices=["words", "pictures", "mixed"], default=None)
    parser.add_argument("--starting", choices=["red", "blue"], default=None, help="competitive: who starts")
    parser.add_argument("--first", choices=["a", "b"], default=None, help="Duet: who gives the first clue")


DEAL_OPTIONS: Final = ("edition", "lang", "seed", "grid", "deck", "starting", "first")
RULE_OPTIONS: Final = (
    "assassin_ending",
    "coop",
    "three_players",
    "no_penalty",
    "timer_ends_turn",
    "relaxed_order",
    "mission",
    "allow_names",
    "allow_abbreviations",
    "allow_compounds",
    "allow_homophones",
)
VOICE_OPTIONS: Final = ("audio_in", "audio_out", "engine", "model", "show_heard", "realtime", "satellite", "voice")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="voicehost", description="An offline voice game host for Codenames.")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="host a game")
    add_deal_options(play)
    play.add_argument("--board", type=file_path, help="play this board file instead of dealing one")
    play.add_argument("--save", type=file_path, help="where the game is kept (written after every event)")
    play.add_argument("--resume", type=file_path, help="continue the game saved in this file")
    play.add_argument("--text", action="store_true", help="type what players say; read what the host says")
    play.add_argument("--events", type=file_path, help="append every event to this JSON Lines file")
    play.add_argument(
        "--timer", type=bounded(*TIMER_RANGE, "the timer"), default=None, metavar="SECONDS", help="sand timer per turn"
    )
    play.add_argument(
        "--display",
        choices=["web", "terminal", "none"],
        default=None,
        help="the public board: a web page (default by voice), a text grid on stderr, or none (default by text)",
    )
    play.add_argument(
        "--port", type=bounded(0, 65535, "the port"), default=None, help=f"the web display's port ({DEFAULT_PORT})"
    )
    play.add_argument(
        "--host",
        default=None,
        help="the web display's address (this machine's on the local network, so phones reach the key pages; "
        "127.0.0.1 keeps it on this machine)",
    )
    play.add_argument("--audio-in", type=file_path, help="the players' speech from this WAV instead of the microphone")
    play.add_argument("--realtime", action="store_true", help="--audio-in: as fast as it was recorded")
    play.add_argument("--audio-out", type=file_path, help="the host's speech to this WAV instead of the speakers")
    play.add_argument("--engine", choices=["vosk", "whisper"], default=None, help="speech recognizer (vosk)")
    play.add_argument("--model", type=folder_path, help="the recognizer's model folder")
    play.add_argument("--show-heard", action="store_true", help="print what the recognizer heard, on stderr")
    play.add_argument("--debug", action="store_true", help="print diagnostics (what failed and why), on stderr")
    play.add_argument(
        "--satellite",
        type=satellite,
        metavar="HOST:PORT|NAME",
        help="a Wyoming satellite (Home Assistant's, wyoming-satellite) as the microphone and the speaker: "
        "its address, or the name it gives itself (found on the network)",
    )
    play.add_argument(
        "--voice",
        choices=["espeak", "piper"],
        default=None,
        help="the host's voice: espeak-ng (default), or Piper when a voice is installed "
        "(voicehost models install LANG --engine piper)",
    )
    play.add_argument(
        "--listen",
        choices=["addressed", "open"],
        default=None,
        help="open (the default): every move heard counts, table talk is left alone; addressed: a move counts "
        "only said to the host, 'Host, cherry' or 'cherry, final answer' (for a table that names cards a lot)",
    )
    play.add_argument(
        "--host-name", type=host_name, default=None, metavar="NAME", help="another name the players call the host by"
    )
    play.add_argument(
        "--key-audio",
        type=earpiece_target,
        default=None,
        metavar="DEVICE",
        help="a blind spymaster's earpiece: key readings asked aloud ('Host, read my key') are said there, never "
        "aloud; a sound output's number or name (python3 -m sounddevice lists them), or a WAV file",
    )
    rules = play.add_argument_group("variants and house rules")
    rules.add_argument("--assassin-ending", action="store_true", help="the game ends only with the assassin")
    rules.add_argument("--coop", action="store_true", help="one team against a simulated opponent")
    rules.add_argument(
        "--simulated",
        choices=["random", "choose"],
        default=None,
        help="co-op: the simulated team's card is picked at random (default) or named by the spymaster",
    )
    rules.add_argument("--three-players", action="store_true", help="two spymasters share one operative")
    rules.add_argument("--no-penalty", action="store_true", help="an invalid clue is just given again")
    rules.add_argument("--timer-ends-turn", action="store_true", help="when the sand runs out, guessing ends")
    rules.add_argument("--tokens", type=int, choices=[9, 10, 11], default=None, help="Duet timer tokens (9)")
    rules.add_argument("--relaxed-order", action="store_true", help="Duet: two clues in a row are allowed")
    rules.add_argument("--mission", help="Duet mission map city, e.g. cairo")
    rules.add_argument("--team", help="Duet: the team whose mission-map progress is kept")
    rules.add_argument("--allow-names", action="store_true", help="multi-word proper names as clues")
    rules.add_argument("--allow-abbreviations", action="store_true")
    rules.add_argument("--allow-compounds", action="store_true")
    rules.add_argument("--allow-homophones", action="store_true")

    deal = commands.add_parser("deal", help="write a random board file")
    add_deal_options(deal)
    deal.add_argument("--out", type=file_path, required=True)
    deal.add_argument(
        "--force", action="store_true", help="replace --out even when it holds a saved game or another file"
    )
    deal.add_argument(
        "--engine",
        choices=["vosk", "whisper"],
        default=None,
        help="prefer the cards this recognizer's model knows (default: the vosk model of the language, if installed)",
    )
    deal.add_argument("--model", type=folder_path, help="the vosk model folder whose vocabulary the deal prefers")

    models = commands.add_parser("models", help="list, install or locate speech models")
    model_commands = models.add_subparsers(dest="models_command", required=True)
    model_commands.add_parser("list", help="every model, where it comes from, and whether it is installed")
    for name, text in (
        ("install", "download, verify and unpack the model of a language"),
        ("path", "print where the model of a language is installed"),
    ):
        sub = model_commands.add_parser(name, help=text)
        sub.add_argument("lang", help="pt-BR, pt-PT, it, en (or a model id from the list)")
        sub.add_argument("--engine", choices=["vosk", "whisper", "piper"], default="vosk")
    model_commands.choices["install"].add_argument(
        "--force", action="store_true", help="download and unpack it again, replacing a damaged copy"
    )

    hear = commands.add_parser("hear", help="what the host understands from recordings or the microphone")
    hear.add_argument("--board", type=file_path, required=True, help="the board whose cards are visible")
    hear.add_argument("--phase", choices=["clue", "guess"], default="guess")
    hear.add_argument("--engine", choices=["vosk", "whisper"], default=None)
    hear.add_argument("--model", type=folder_path)
    hear.add_argument("--json", action="store_true", help="one JSON object a file")
    hear.add_argument("--mic", action="store_true", help="listen to the microphone until Ctrl-C")
    hear.add_argument("wavs", type=file_path, nargs="*", metavar="WAV")

    key = commands.add_parser("key", help="print the key of a saved game, once, for a spymaster")
    key.add_argument("save", type=file_path, nargs="?", default=None)
    key.add_argument("--side", choices=["a", "b"], help="Duet: only this side")
    return parser


def _given(args: argparse.Namespace, names: Sequence[str]) -> list[str]:
    """The options among `names` the player gave (set, or switched on)."""
    return [f"--{name.replace('_', '-')}" for name in names if getattr(args, name, None) not in (None, False)]


def check_play(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse (exit 2) the flags of `play` that contradict each other or would be ignored."""
    if args.resume is not None:
        ignored = _given(args, (*DEAL_OPTIONS, *RULE_OPTIONS, "board", "tokens", "simulated"))
        if ignored:
            parser.error(f"--resume continues the saved game as it was: {', '.join(ignored)} cannot change it")
    if args.board is not None:  # --edition and --lang are checked against the board once it is read
        ignored = _given(args, ("grid", "deck", "starting", "first"))  # --seed still seeds the simulated team
        if ignored:
            parser.error(f"--board plays the board as the file gives it: {', '.join(ignored)} cannot change it")
    if args.text:
        ignored = _given(args, VOICE_OPTIONS)
        if ignored:
            parser.error(f"--text plays by typing: {', '.join(ignored)} is for playing by voice")
    if args.satellite is not None:
        ignored = _given(args, ("audio_in", "audio_out", "realtime"))
        if ignored:
            parser.error(f"--satellite is the microphone and the speaker: {', '.join(ignored)} cannot go with it")
    if args.realtime and args.audio_in is None:
        parser.error("--realtime paces a recording: give it with --audio-in")
    for first, second in (("save", "events"), ("resume", "events"), ("audio_in", "audio_out")):
        one, other = getattr(args, first), getattr(args, second)
        if one is not None and other is not None and _same_file(one, other):
            parser.error(f"--{first.replace('_', '-')} and --{second.replace('_', '-')} must be two different files")
    if args.key_audio is not None:  # the earpiece's file must not overwrite another the game uses
        for other in ("audio_in", "audio_out", "save", "resume", "events"):
            path = getattr(args, other)
            if path is not None and _same_file(path, Path(args.key_audio)):
                parser.error(f"--key-audio and --{other.replace('_', '-')} must be two different files")
    if args.edition == "duet":
        wrong = _given(args, ("starting", "coop", "assassin_ending", "three_players", "simulated"))
        if args.grid == "5x4":
            wrong.append("--grid 5x4")
        if wrong:
            parser.error(f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not for Duet")
    elif args.edition is not None or args.board is None:
        wrong = _given(args, ("first", "tokens", "relaxed_order", "mission", "team"))
        if wrong:
            parser.error(f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} only for Duet (--edition duet)")
    if args.simulated is not None and not args.coop and args.resume is None:
        parser.error("--simulated is for --coop games")


def _same_file(one: Path, other: Path) -> bool:
    try:
        if one.exists() and other.exists():
            return one.samefile(other)
    except OSError:
        pass
    return one.resolve() == other.resolve()
