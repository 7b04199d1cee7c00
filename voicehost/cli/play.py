"""`voicehost play`: open the game (new or resumed) safely, pick the mode of play, and run the host.

Nothing a player had is lost on the way: the save is locked while a host plays it, an unfinished
default game is kept aside (and the host says how to go back to it), a save or an events log that
holds another game is refused, and a game that cannot be saved where asked does not start.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.board import Board
from engine.characters import shown
from engine.editions import AnyGame, new_game
from engine.errors import GameError, NotAllowedInThisGame
from engine.events import Event
from engine.lang import Lang
from engine.missions import Campaign
from voicehost.cli.failures import EXIT_ERROR, EXIT_OK, UsageError, UserError
from voicehost.cli.parser import DEFAULT_PORT
from voicehost.cli.setup import (
    deal_board,
    next_game_args,
    read_board,
    system_lang,
    variants_from,
    vocabulary_knows,
)
from voicehost.display import Display, DisplayError, clue_checker, make_display
from voicehost.display.network import table_address
from voicehost.display.web import WebDisplay
from voicehost.frontends import Frontend
from voicehost.frontends.text import TextFrontend
from voicehost.mouth import Mouth
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings
from voicehost.storage.campaigns import load_campaign
from voicehost.storage.errors import SaveError, StorageError
from voicehost.storage.events_log import EventLog
from voicehost.storage.locks import GameLock
from voicehost.storage.paths import default_save_path, kept_games_dir
from voicehost.storage.saves import is_unfinished_game, load_game
from voicehost.storage.session import Session
from voicehost.understanding.moment import ListenMode


@dataclass
class OpenedGame:
    """A game ready to be played, with what holds it: its save, its locks, what to tell the players first."""

    game: AnyGame
    settings: dict[str, Any]
    save_path: Path
    resumed: bool
    locks: list[GameLock] = field(default_factory=list)
    notes: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # prompt keys and their fields
    console: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # the same, printed, never said

    def release(self) -> None:
        for lock in reversed(self.locks):
            lock.release()


def command_play(args: argparse.Namespace) -> int:
    opened = open_game(args)
    try:
        return _play(args, opened)
    finally:
        opened.release()


def _play(args: argparse.Namespace, opened: OpenedGame) -> int:
    game, settings = opened.game, opened.settings
    campaign = _campaign(game, settings, opened.resumed)
    prompts = Prompts.load(game.board.lang)
    frontend = _frontend(args, game.board.lang, prompts)
    closing: list[Any] = [frontend]
    try:
        earpiece = _earpiece(args, game.board.lang, prompts)
        if earpiece is not None:
            closing.append(earpiece)
        display = open_display(args, game, prompts)
        closing.append(display)
        mouth = ShownMouth(frontend.mouth, display)
        log = _events_log(args.events, game, opened)
        session = Session(
            opened.save_path,
            log,
            settings,
            on_failure=lambda what, place, reason: mouth.say(
                prompts.text(f"error.{what}_failed", place=str(place), reason=prompts.text(f"os_reason.{reason}"))
            ),
            on_recovery=lambda what: mouth.say(prompts.text(f"error.{what}_recovered")),
            campaign=campaign,
        )
        closing.append(session)
        session.first_save(game)
        host = _host(args, opened, prompts, mouth, session, display, earpiece, getattr(frontend, "unheard", None))
        closing.append(host)
        display.handle_private(on_cover=host.cover, on_check=clue_checker(lambda: host.game))
        noted = [prompts.text(key, **params) for key, params in opened.console]
        for line in [*display.console_lines(), *host.console_lines(str(opened.save_path)), *noted]:
            print(line, file=sys.stderr, flush=True)
        for key, params in opened.notes:
            mouth.say(prompts.text(key, **params))
        if frontend.note:
            mouth.say(frontend.note)
        host.start(resumed=opened.resumed)
        with contextlib.suppress(KeyboardInterrupt):
            frontend.run(host)
    finally:
        for thing in reversed(closing):
            with contextlib.suppress(Exception):  # closing one thing must not keep the others open
                thing.close()
    if not session.saved:
        print(f"voicehost: not on disk: {shown(session.failure or '')}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def _host(
    args: argparse.Namespace,
    opened: OpenedGame,
    prompts: Prompts,
    mouth: Mouth,
    session: Session,
    display: Display,
    earpiece: Mouth | None = None,
    unheard: Callable[[Sequence[str]], Sequence[str]] | None = None,
) -> Host:
    game, settings = opened.game, opened.settings
    host_settings = HostSettings(
        timer_seconds=args.timer or settings.get("timer"),
        simulated=settings.get("simulated", "random"),
        seed=int(settings.get("seed") or 0),
        key_pages=isinstance(display, WebDisplay),
        listening=ListenMode(args.listen or "open"),  # by voice too: README, "Who the host listens to"
        host_name=args.host_name or "",
        unheard=unheard,  # vosk: the cards outside the model's words, to be named by their place
    )

    def another_game() -> AnyGame:
        deal_args = argparse.Namespace(**{**vars(args), **settings.get("edition_args", {})})
        deal_args.seed = None
        knows = None if unheard is None else (lambda card: not unheard([card]))
        return new_game(deal_board(deal_args, game.board.lang, knows), game.variants)

    def on_events(changed: AnyGame, events: Sequence[Event]) -> None:
        session(changed, events)
        display.show(changed)

    return Host(
        game,
        prompts,
        mouth,
        settings=host_settings,
        on_events=on_events,
        new_game=another_game,
        on_timer=display.timer,
        unsaved=lambda: session.failed_at,
        earpiece=earpiece,
    )


# ---- opening the game ----------------------------------------------------------------------------


def open_game(args: argparse.Namespace) -> OpenedGame:
    """The game to play, its save locked; refuses (UserError) whatever would lose a game."""
    return _resumed(args) if args.resume is not None else _new(args)


def _resumed(args: argparse.Namespace) -> OpenedGame:
    path: Path = args.resume
    locks = [GameLock(path).acquire()]
    try:
        try:
            saved = load_game(path)
        except SaveError as exc:
            raise UserError(f"the saved game cannot be resumed: {exc}. The file was left untouched") from None
        save_path: Path = args.save or path
        if args.save is not None and not _same(args.save, path):
            locks.append(GameLock(save_path).acquire())
            _refuse_other_game(save_path)
        settings = dict(saved.settings)
        return OpenedGame(saved.game, settings, save_path, True, locks)
    except BaseException:
        for lock in locks:
            lock.release()
        raise


def _new(args: argparse.Namespace) -> OpenedGame:
    lang = args.lang or system_lang()
    # by voice with vosk, a dealt board prefers the cards the model knows (the others go by their place)
    knows = None if args.board or args.text else vocabulary_knows(args.engine, args.model, lang)
    board = read_board(args.board) if args.board else deal_board(args, lang, knows)
    if args.board is not None:
        _check_board_options(args, board)
    try:
        game = new_game(board, variants_from(args))
    except NotAllowedInThisGame as exc:
        raise UsageError(str(exc)) from None
    except GameError as exc:
        raise UserError(str(exc)) from None
    if args.team and board.is_duet is False:
        raise UsageError("--team keeps a Duet team's mission map: it is only for Duet")
    settings: dict[str, Any] = {
        "timer": args.timer,
        "simulated": args.simulated or "random",
        "seed": args.seed if args.seed is not None else 0,
        "edition_args": next_game_args(args, board),
    }
    if args.team:
        settings["team"] = args.team
        _check_mission_open(args.team, game)
    save_path: Path = args.save or default_save_path()
    lock = GameLock(save_path).acquire()
    try:
        notes: list[tuple[str, dict[str, str]]] = []
        console: list[tuple[str, dict[str, str]]] = []
        if args.save is not None:
            _refuse_other_game(save_path)
        else:
            kept = _keep_aside(save_path)
            if kept is not None:
                notes.append(("game.previous_kept", {}))  # said; the command to resume it is printed
                console.append(("console.previous_kept", {"path": str(kept)}))
        return OpenedGame(game, settings, save_path, False, [lock], notes, console)
    except BaseException:
        lock.release()
        raise


def _check_board_options(args: argparse.Namespace, board: Board) -> None:
    """--edition and --lang may repeat what the board file says, never contradict it."""
    if args.edition is not None and args.edition != board.edition.value:
        raise UsageError(f"{args.board} is a {board.edition.value} board: --edition {args.edition} cannot change it")
    if args.lang is not None and args.lang is not board.lang:
        raise UsageError(f"{args.board} is a {board.lang.value} board: --lang {args.lang.value} cannot change it")
    duet_only = [name for name in ("tokens", "relaxed_order", "mission", "team") if getattr(args, name)]
    if duet_only and not board.is_duet:
        options = ", ".join(f"--{name.replace('_', '-')}" for name in duet_only)
        raise UsageError(f"{options}: only for Duet, and {args.board} is a {board.edition.value} board")


def _refuse_other_game(path: Path) -> None:
    """A save path chosen by the player must not hold something a new game would destroy."""
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return
    unfinished = is_unfinished_game(path)
    if unfinished is None:
        raise UserError(f"{path} already exists and is not a voicehost game: choose another file with --save")
    if unfinished:
        raise UserError(
            f"{path} holds a game that is not finished: resume it with --resume {path}, or choose another --save file"
        )


def _keep_aside(path: Path) -> Path | None:
    """The default save: an unfinished (or unreadable) game there is moved aside, never replaced."""
    if not path.exists() or is_unfinished_game(path) is False:
        return None
    folder = kept_games_dir()
    target = folder / time.strftime("game-%Y%m%d-%H%M%S.json")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(2, 100):
            if not target.exists():
                break
            target = folder / time.strftime(f"game-%Y%m%d-%H%M%S-{n}.json")
        path.replace(target)
    except OSError as exc:
        raise StorageError(
            f"your unfinished game in {path} cannot be kept aside ({exc.strerror}): nothing was changed"
        ) from None
    return target


def _events_log(path: Path | None, game: AnyGame, opened: OpenedGame) -> EventLog | None:
    if path is None:
        return None
    opened.locks.append(GameLock(path, "events log").acquire())
    return EventLog(path, game.events, resumed=opened.resumed)


def _campaign(game: AnyGame, settings: dict[str, Any], resumed: bool) -> Campaign | None:
    team = settings.get("team")
    return None if team is None else load_campaign(team)


def _check_mission_open(team: str, game: AnyGame) -> None:
    """A team plays the cities its map has opened (the first normal game opens Praga)."""
    city = game.variants.mission
    if city is None:
        return
    campaign = load_campaign(team)
    if city not in campaign.available():
        opened = ", ".join(campaign.available()) or "none yet: first win a normal 9-token game"
        raise UserError(f"the mission {city} is not open for {team}; open missions: {opened}")


def _same(one: Path, other: Path) -> bool:
    with contextlib.suppress(OSError):
        if one.exists() and other.exists():
            return one.samefile(other)
    return one.resolve() == other.resolve()


# ---- the mode of play and the display ----------------------------------------------------------------


def _frontend(args: argparse.Namespace, lang: Lang, prompts: Prompts) -> Frontend:
    if args.text:
        return TextFrontend()
    if args.satellite is not None:
        from voicehost.frontends.satellite import SatelliteFrontend, SatelliteSettings

        host, port = args.satellite if isinstance(args.satellite, tuple) else (args.satellite, None)
        return SatelliteFrontend(
            SatelliteSettings(
                lang=lang,
                host=host,
                port=port,
                engine=args.engine,
                model=args.model,
                voice=args.voice,
                show_heard=args.show_heard,
            ),
            prompts,
        )
    from voicehost.cli.by_text import play_by_text
    from voicehost.frontends.voice import VoiceFrontend, VoiceSettings

    settings = VoiceSettings(
        lang=lang,
        engine=args.engine,
        model=args.model,
        audio_in=args.audio_in,
        audio_out=args.audio_out,
        realtime=args.realtime,
        show_heard=args.show_heard,
        voice=args.voice,
        text_command=play_by_text(getattr(args, "argv", ["play"]), sys.argv[0]),
    )
    return VoiceFrontend(settings, prompts)


def _earpiece(args: argparse.Namespace, lang: Lang, prompts: Prompts) -> Mouth | None:
    """--key-audio: a blind spymaster's private mouth (voicehost/mouth/earpiece.py); None without it."""
    target: str | None = getattr(args, "key_audio", None)
    if target is None:
        return None
    from voicehost.mouth.earpiece import open_earpiece

    return open_earpiece(target, lang, prompts, getattr(args, "voice", None))


class ShownMouth:
    """Every announcement is said, and shown on the board page's live region."""

    def __init__(self, mouth: Mouth, display: Display) -> None:
        self.mouth = mouth
        self.display = display

    def say(self, text: str) -> None:
        self.mouth.say(text)
        self.display.said(text)


def open_display(args: argparse.Namespace, game: AnyGame, prompts: Prompts) -> Display:
    """--display as asked; by default the web page by voice and nothing by text, on this machine's local
    network address (phones open the key pages there) unless --host says otherwise. With the default
    port taken (another game, another program), any free port: the address is printed anyway."""
    kind = args.display or ("none" if args.text else "web")
    port = DEFAULT_PORT if args.port is None else args.port
    host = args.host if args.host is not None else table_address()
    stream = sys.stderr if args.text else None
    try:
        return make_display(kind, game, prompts, host=host, port=port, stream=stream)
    except DisplayError as exc:
        if args.port is not None or kind != "web":
            raise UserError(f"the display cannot start: {exc}") from None
        return make_display(kind, game, prompts, host=host, port=0)
