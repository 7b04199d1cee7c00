"""The `voicehost` command: play, deal and key (see CONTRACT.md for the stable outside)."""

from __future__ import annotations

import argparse
import json
import locale
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.board import Board, deal_competitive, deal_duet
from engine.decks import picture_names, words
from engine.editions import AnyGame, new_game
from engine.errors import BoardError, GameError
from engine.events import Event
from engine.lang import Lang
from engine.pieces import GRID_5X4, GRID_5X5, Edition, Side, Team
from engine.variants import HouseRules, Variants
from voicehost.devices import DeviceError
from voicehost.display import Display, DisplayError, make_display
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings
from voicehost.speech_models import (
    MARKER,
    Manifest,
    ModelError,
    ModelSpec,
    install,
    installed_path,
    models_dir,
    require,
    text_progress,
)
from voicehost.storage.campaigns import load_campaign
from voicehost.storage.saves import SaveError, default_save_path, load_game
from voicehost.storage.session import Session
from voicehost.voice_mode import Voice

EXIT_OK, EXIT_GAME_ERROR, EXIT_USAGE = 0, 1, 2
DEFAULT_PORT = 8080


class UserError(Exception):
    """Something the player must fix (a missing file, a bad board): printed, exit code 1."""


def system_lang() -> Lang:
    """The system's language when it is one we speak, else Brazilian Portuguese."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value and value not in ("C", "POSIX") and not value.startswith("C."):
            tag = value.split(".")[0].replace("_", "-")
            for candidate in (tag, tag.split("-")[0]):
                try:
                    return Lang.parse(candidate)
                except ValueError:
                    continue
    code = locale.getlocale()[0] or ""
    try:
        return Lang.parse(code.replace("_", "-")) if code else Lang.PT_BR
    except ValueError:
        return Lang.PT_BR


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
    parser.add_argument("--edition", choices=[e.value for e in Edition], default="classic")
    parser.add_argument("--lang", type=_lang, default=None, help="pt-BR, pt-PT, it or en (default: the system's)")
    parser.add_argument("--seed", type=int, default=None, help="the same seed deals the same board")
    parser.add_argument("--grid", type=_grid, default=None, help="5x5 or 5x4 (mix words and pictures freely)")
    parser.add_argument("--deck", choices=["words", "pictures", "mixed"], default=None)
    parser.add_argument("--starting", choices=["red", "blue"], default=None, help="competitive: who starts")
    parser.add_argument("--first", choices=["a", "b"], default=None, help="Duet: who gives the first clue")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="voicehost", description="An offline voice game host for Codenames.")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="host a game")
    add_deal_options(play)
    play.add_argument("--board", type=Path, help="play this board file instead of dealing one")
    play.add_argument("--save", type=Path, help="where the game is kept (written after every event)")
    play.add_argument("--resume", type=Path, help="continue the game saved in this file")
    play.add_argument("--text", action="store_true", help="type what players say; read what the host says")
    play.add_argument("--events", type=Path, help="append every event to this JSON Lines file")
    play.add_argument("--timer", type=int, default=None, metavar="SECONDS", help="sand timer per turn")
    play.add_argument(
        "--display",
        choices=["web", "terminal", "none"],
        default=None,
        help="the public board: a web page (default by voice), a text grid on stderr, or none (default by text)",
    )
    play.add_argument("--port", type=int, default=None, help=f"the web display's port ({DEFAULT_PORT})")
    play.add_argument("--host", default="127.0.0.1", help="the web display's address (key pages go there too)")
    play.add_argument("--audio-in", type=Path, help="the players' speech from this WAV instead of the microphone")
    play.add_argument("--realtime", action="store_true", help="--audio-in: as fast as it was recorded")
    play.add_argument("--audio-out", type=Path, help="the host's speech to this WAV instead of the speakers")
    play.add_argument("--engine", choices=["vosk", "whisper"], default=None, help="speech recognizer (vosk)")
    play.add_argument("--model", type=Path, help="the recognizer's model folder")
    play.add_argument("--show-heard", action="store_true", help="print what the recognizer heard, on stderr")
    rules = play.add_argument_group("variants and house rules")
    rules.add_argument("--assassin-ending", action="store_true", help="the game ends only with the assassin")
    rules.add_argument("--coop", action="store_true", help="one team against a simulated opponent")
    rules.add_argument(
        "--simulated",
        choices=["random", "choose"],
        default="random",
        help="co-op: the simulated team's card is picked at random or named by the spymaster",
    )
    rules.add_argument("--three-players", action="store_true", help="two spymasters share one operative")
    rules.add_argument("--no-penalty", action="store_true", help="an invalid clue is just given again")
    rules.add_argument("--timer-ends-turn", action="store_true", help="when the sand runs out, guessing ends")
    rules.add_argument("--tokens", type=int, choices=[9, 10, 11], default=9, help="Duet timer tokens")
    rules.add_argument("--relaxed-order", action="store_true", help="Duet: two clues in a row are allowed")
    rules.add_argument("--mission", help="Duet mission map city, e.g. cairo")
    rules.add_argument("--team", help="Duet: the team whose mission-map progress is kept")
    rules.add_argument("--allow-names", action="store_true", help="multi-word proper names as clues")
    rules.add_argument("--allow-abbreviations", action="store_true")
    rules.add_argument("--allow-compounds", action="store_true")
    rules.add_argument("--allow-homophones", action="store_true")

    deal = commands.add_parser("deal", help="write a random board file")
    add_deal_options(deal)
    deal.add_argument("--out", type=Path, required=True)

    models = commands.add_parser("models", help="list, install or locate speech models")
    model_commands = models.add_subparsers(dest="models_command", required=True)
    model_commands.add_parser("list", help="every model, where it comes from, and whether it is installed")
    for name, text in (
        ("install", "download, verify and unpack the model of a language"),
        ("path", "print where the model of a language is installed"),
    ):
        sub = model_commands.add_parser(name, help=text)
        sub.add_argument("lang", help="pt-BR, pt-PT, it, en (or a model id from the list)")
        sub.add_argument("--engine", choices=["vosk", "whisper"], default="vosk")
    model_commands.choices["install"].add_argument(
        "--force", action="store_true", help="download and unpack it again, replacing a damaged copy"
    )

    hear = commands.add_parser("hear", help="what the host understands from recordings or the microphone")
    hear.add_argument("--board", type=Path, required=True, help="the board whose cards are visible")
    hear.add_argument("--phase", choices=["clue", "guess"], default="guess")
    hear.add_argument("--engine", choices=["vosk", "whisper"], default=None)
    hear.add_argument("--model", type=Path)
    hear.add_argument("--json", action="store_true", help="one JSON object a file")
    hear.add_argument("--mic", action="store_true", help="listen to the microphone until Ctrl-C")
    hear.add_argument("wavs", type=Path, nargs="*", metavar="WAV")

    key = commands.add_parser("key", help="print the key of a saved game, once, for a spymaster")
    key.add_argument("save", type=Path, nargs="?", default=None)
    key.add_argument("--side", choices=["a", "b"], help="Duet: only this side")
    return parser


def deal_board(args: argparse.Namespace, lang: Lang) -> Board:
    edition = Edition(args.edition)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    deck_kind = args.deck or ("pictures" if edition is Edition.PICTURES else "words")
    deck: list[str] = []
    if deck_kind in ("words", "mixed"):
        deck += words(lang)
    if deck_kind in ("pictures", "mixed"):
        deck += [name for name in picture_names(lang) if name not in deck]
    if edition is Edition.DUET:
        if args.grid == "5x4":
            raise UserError("Duet is played on a 5x5 grid")
        return deal_duet(deck, lang, rng, first_clue_giver=Side(args.first) if args.first else None)
    grid = {"5x5": GRID_5X5, "5x4": GRID_5X4}.get(args.grid or "")
    return deal_competitive(
        deck, lang, rng, edition=edition, grid=grid, starting_team=Team(args.starting) if args.starting else None
    )


def read_board(path: Path) -> Board:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"no board file at {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path} is not a board file: {exc}") from None
    try:
        return Board.from_dict(data)
    except BoardError as exc:
        raise UserError(f"{path}: {exc}") from None


def variants_from(args: argparse.Namespace) -> Variants:
    house = HouseRules(
        multiword_names=args.allow_names,
        abbreviations=args.allow_abbreviations,
        compounds=args.allow_compounds,
        homophones=args.allow_homophones,
    )
    return Variants(
        assassin_ending=args.assassin_ending,
        coop=args.coop,
        shared_operative=args.three_players,
        invalid_clue_penalty=not args.no_penalty,
        timer_ends_turn=args.timer_ends_turn,
        duet_tokens=args.tokens,
        duet_relaxed_order=args.relaxed_order,
        mission=args.mission,
        house=house,
    )


class PrintMouth:
    """Text mode: every announcement is one line on standard output."""

    def say(self, text: str) -> None:
        print(text, flush=True)


def command_play(args: argparse.Namespace) -> int:
    settings: dict[str, Any]
    resumed = args.resume is not None
    if resumed:
        try:
            saved = load_game(args.resume)
        except SaveError as exc:
            raise UserError(f"the saved game cannot be resumed: {exc}. The file was left untouched.") from None
        game: AnyGame = saved.game
        settings = saved.settings
        save_path: Path = args.save or args.resume
    else:
        lang = args.lang or system_lang()
        board = read_board(args.board) if args.board else deal_board(args, lang)
        try:
            game = new_game(board, variants_from(args))
        except GameError as exc:
            raise UserError(str(exc)) from None
        settings = {
            "timer": args.timer,
            "simulated": args.simulated,
            "seed": args.seed if args.seed is not None else 0,
            "edition_args": vars_for_new_game(args, board),
        }
        save_path = args.save or default_save_path()
    campaign = None
    team = args.team or settings.get("team")
    if team:
        campaign = load_campaign(team)
        city = game.variants.mission
        if city is not None and not resumed and city not in campaign.available():
            opened = ", ".join(campaign.available()) or "none yet: first win a normal 9-token game"
            raise UserError(f"the mission {city} is not open for {team}; open missions: {opened}")
        settings["team"] = team
    prompts = Prompts.load(game.board.lang)
    voice = None if args.text else Voice.open(args, game.board.lang, prompts)
    mouth: Any = voice.mouth if voice is not None and voice.mouth is not None else PrintMouth()
    display = open_display(args, game, prompts)
    mouth = ShownMouth(mouth, display)
    session = Session(
        save_path,
        args.events,
        settings,
        warn=lambda detail: mouth.say(prompts.text("error.save_failed", detail=detail)),
        campaign=campaign,
    )
    host_settings = HostSettings(
        timer_seconds=args.timer or settings.get("timer"),
        simulated=settings.get("simulated", "random"),
        seed=int(settings.get("seed") or 0),
    )

    def another_game() -> AnyGame:
        replay_args = argparse.Namespace(**{**vars(args), **settings.get("edition_args", {})})
        replay_args.seed = None
        return new_game(deal_board(replay_args, game.board.lang), game.variants)

    def on_events(changed: AnyGame, events: Sequence[Event]) -> None:
        session(changed, events)
        display.show(changed)

    host = Host(
        game,
        prompts,
        mouth,
        settings=host_settings,
        on_events=on_events,
        new_game=another_game,
        save_hint=str(save_path),
        on_timer=display.timer,
    )
    on_events(game, game.events)  # a new game's start, or what a crash kept out of the events file
    for line in display.console_lines():
        print(line, file=sys.stderr, flush=True)
    if voice is not None and voice.note:
        mouth.say(voice.note)
    host.start(resumed=resumed)
    try:
        if voice is not None:
            voice.run(host)
        else:
            for line in sys.stdin:
                host.hear(line.rstrip("\n"))
                if host.finished:
                    break
    except KeyboardInterrupt:
        pass
    finally:
        host.close()
        session.close()
        display.close()
        if voice is not None:
            voice.close()
    return EXIT_OK


class ShownMouth:
    """Every announcement is said, and shown on the board page's live region."""

    def __init__(self, mouth: Any, display: Display) -> None:
        self.mouth = mouth
        self.display = display

    def say(self, text: str) -> None:
        self.mouth.say(text)
        self.display.said(text)

    def __getattr__(self, name: str) -> Any:  # speaking, stop: the voice loop's echo gate
        return getattr(self.mouth, name)


def open_display(args: argparse.Namespace, game: AnyGame, prompts: Prompts) -> Display:
    """--display as asked; by default the web page by voice and nothing by text. With the default port
    taken (another game, another program), any free port: the address is printed anyway."""
    kind = args.display or ("none" if args.text else "web")
    port = DEFAULT_PORT if args.port is None else args.port
    stream = sys.stderr if args.text else None
    try:
        return make_display(kind, game, prompts, host=args.host, port=port, stream=stream)
    except DisplayError as exc:
        if args.port is not None or kind != "web":
            raise UserError(f"the display cannot start: {exc}") from None
        return make_display(kind, game, prompts, host=args.host, port=0)


def vars_for_new_game(args: argparse.Namespace, board: Board) -> dict[str, Any]:
    """How to deal the next game in this session: like this one, with a fresh key."""
    chosen = {name: getattr(args, name) for name in ("grid", "deck", "starting", "first")}
    chosen["edition"] = board.edition.value
    chosen["grid"] = chosen["grid"] or f"{board.grid.columns}x{board.grid.rows}"
    return chosen


def command_deal(args: argparse.Namespace) -> int:
    board = deal_board(args, args.lang or system_lang())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(board.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {board.edition.value}, {board.lang.value}, {board.grid.columns}x{board.grid.rows}")
    return EXIT_OK


def command_key(args: argparse.Namespace) -> int:
    path = args.save or default_save_path()
    try:
        game = load_game(path).game
    except SaveError as exc:
        raise UserError(str(exc)) from None
    board = game.board
    width = max(len(card) for card in board.cards) + 2
    marks = {"red": "R", "blue": "B", "bystander": ".", "assassin": "X", "green": "G"}
    if board.is_duet and args.side is None:
        raise UserError("each Duet player sees only their own side of the key: add --side a or --side b")
    if board.is_duet:
        side = Side(args.side)
        sides = [(f"side {side.value.upper()}", board.side_key(side))]
    else:
        sides = [("", board.key)]
    for title, key in sides:
        if title:
            print(title)
        for row in range(board.grid.rows):
            cells = []
            for col in range(board.grid.columns):
                index = row * board.grid.columns + col
                covered = "*" if game.is_covered(index) else " "
                cells.append(f"{marks[key[index].value]}{covered}{board.cards[index]:<{width}}")
            print(" ".join(cells))
    print("R red, B blue, G green, . bystander, X assassin; * covered")
    return EXIT_OK


def command_hear(args: argparse.Namespace) -> int:
    from voicehost.devices import choose_engine, microphone_chunks
    from voicehost.ears.audio import AudioError
    from voicehost.ears.judge import context_for, judge_files, read
    from voicehost.ears.loop import _make_vosk, _make_whisper, make_ears

    if not args.wavs and not args.mic:
        raise UserError("give one or more WAV files, or --mic")
    board = read_board(args.board)
    choice = choose_engine(args.engine, args.model, board.lang)
    if choice.note:
        print(choice.note, file=sys.stderr)
    if args.mic:
        ears = make_ears(choice.engine, choice.model_dir)
        chunks, microphone = microphone_chunks(
            lambda lost: print(f"voicehost: {lost}", file=sys.stderr), lambda: None, "Give WAV files instead."
        )
        try:
            for index, heard in enumerate(ears.utterances(chunks, lambda: context_for(board, args.phase)), 1):
                verdict = read(heard, board, args.phase, f"utterance {index}")
                print(verdict.json() if args.json else verdict.line(), flush=True)
        except KeyboardInterrupt:
            pass
        finally:
            microphone.close()
        return EXIT_OK
    recognizer: Any = _make_whisper(choice.model_dir) if choice.engine == "whisper" else _make_vosk(choice.model_dir)
    try:
        for verdict in judge_files(recognizer, board, args.phase, args.wavs):
            print(verdict.json() if args.json else verdict.line(), flush=True)
    except AudioError as exc:
        raise UserError(str(exc)) from None
    return EXIT_OK


def command_models(args: argparse.Namespace) -> int:
    manifest = Manifest.load()
    if args.models_command == "list":
        root = models_dir()
        print(f"models folder: {root}")
        for spec in manifest.models:
            where = installed_path(spec, root)
            state = f"installed at {where}" if where else "not installed"
            print(f"{spec.id:15} {spec.engine:8} {','.join(spec.langs):22} {spec.size_mb:>5} MB  {state}")
            print(f"{'':15} for: {spec.machine}; from {spec.where_from}")
        return EXIT_OK
    spec = _model_for(manifest, args.lang, args.engine)
    if args.models_command == "path":
        print(require(spec, lang=args.lang))
        return EXIT_OK
    path = _reinstall(spec) if args.force else install(spec, progress=text_progress(spec.id))
    print(path)
    return EXIT_OK


def _reinstall(spec: ModelSpec) -> Path:
    """install() keeps a folder it installed before, so its marker goes first; when no new copy can be
    had, the marker comes back and the old files are as they were (install() replaces them only at the end)."""
    marker = models_dir() / spec.dir / MARKER
    kept = marker.read_text(encoding="utf-8") if marker.is_file() else None
    marker.unlink(missing_ok=True)
    try:
        return install(spec, progress=text_progress(spec.id))
    except BaseException:
        if kept is not None and marker.parent.is_dir() and not marker.exists():
            marker.write_text(kept, encoding="utf-8")
        raise


def _model_for(manifest: Manifest, lang_or_id: str, engine: str) -> ModelSpec:
    try:
        return manifest.get(lang_or_id)
    except ModelError:
        pass
    try:
        lang = Lang.parse(lang_or_id).value
    except ValueError:
        lang = lang_or_id
    return manifest.default_for(lang, engine)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {
        "play": command_play,
        "deal": command_deal,
        "key": command_key,
        "models": command_models,
        "hear": command_hear,
    }
    try:
        return handlers[args.command](args)
    except (UserError, ModelError, DeviceError) as exc:
        print(f"voicehost: {exc}", file=sys.stderr)
        return EXIT_GAME_ERROR


if __name__ == "__main__":
    sys.exit(main())
