"""`voicehost deal`: a random board written to a file, and `voicehost key`: a saved game's key, printed once."""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

from engine.characters import shown
from engine.pieces import Side
from voicehost.cli.failures import EXIT_OK, UsageError, UserError
from voicehost.cli.setup import deal_board, read_board, system_lang, vocabulary_knows
from voicehost.prompts import Prompts
from voicehost.storage.atomic import write_atomically
from voicehost.storage.errors import SaveError, os_reason
from voicehost.storage.paths import default_save_path
from voicehost.storage.saves import is_unfinished_game, load_game

COVERED_MARK = "*"
"""Printed after the letter of a card already covered."""


def command_deal(args: argparse.Namespace) -> int:
    if args.edition == "duet" and (args.grid == "5x4" or args.starting):
        raise UsageError("Duet is played on a 5x5 grid, and A or B starts (--first), not a team")
    if args.edition != "duet" and args.first:
        raise UsageError("--first is for Duet: a competitive game starts with a team (--starting)")
    lang = args.lang or system_lang()
    # the cards the vosk model for the language knows first, when one is installed (or --engine/--model)
    board = deal_board(args, lang, vocabulary_knows(args.engine, args.model, lang))
    if args.out.is_dir():
        raise UserError(f"{args.out} is a folder: give the board file's name, e.g. {args.out / 'board.json'}")
    if not args.force:
        _refuse_to_replace(args.out)
    try:
        write_atomically(args.out, json.dumps(board.to_dict(), ensure_ascii=False, indent=1) + "\n")
    except OSError as exc:
        raise UserError(f"the board cannot be written to {args.out}: {os_reason(exc)}") from None
    print(f"{shown(str(args.out))}: {board.edition.value}, {board.lang.value}, {board.grid.columns}x{board.grid.rows}")
    return EXIT_OK


def _refuse_to_replace(path: Path) -> None:
    """--out may replace an older board file (dealing again), never a saved game or any other file: that
    needs --force (UserError, exit 1, the file left as it was)."""
    if not path.exists() and not path.is_symlink():
        return
    with contextlib.suppress(OSError):
        if path.is_file() and path.stat().st_size == 0:
            return
    with contextlib.suppress(UserError):
        read_board(path)
        return  # a board file: dealing again over it is what --out is for
    if is_unfinished_game(path):
        raise UserError(
            f"{path} holds a game that is not finished: resume it with `voicehost play --resume {path}`, "
            "or choose another --out (--force replaces it with the new board, and the game is lost)"
        )
    raise UserError(
        f"{path} already exists and is not a board file: it was left untouched. Choose another --out, "
        "or add --force to replace it"
    )


def command_key(args: argparse.Namespace) -> int:
    path = args.save or default_save_path()
    try:
        game = load_game(path).game
    except SaveError as exc:
        raise UserError(str(exc)) from None
    board = game.board
    if board.is_duet and args.side is None:
        raise UsageError("each Duet player sees only their own side of the key: add --side a or --side b")
    if not board.is_duet and args.side is not None:
        raise UsageError("--side is for Duet: in this game both spymasters share one key")
    width = max(len(card) for card in board.cards) + 2
    prompts = Prompts.load(board.lang)
    marks = key_marks(prompts)
    holders = [args.side] if board.is_duet else list(game.KEY_HOLDERS)
    for holder in holders:
        if board.is_duet:
            print(prompts.text("console.key_side", side=Side(holder).value.upper()))
        key = game.key_for(holder)
        for row in range(board.grid.rows):
            cells = []
            for col in range(board.grid.columns):
                index = row * board.grid.columns + col
                covered = COVERED_MARK if game.is_covered(index) else " "
                cells.append(f"{marks[key[index].value]}{covered}{shown(board.cards[index]):<{width}}")
            print(" ".join(cells))
    legend = "console.key_legend_duet" if board.is_duet else "console.key_legend"
    print(prompts.text(legend, covered=COVERED_MARK, **marks))
    return EXIT_OK


def key_marks(prompts: Prompts) -> dict[str, str]:
    """The letter printed before each card of the key: the display's letter for an identity, in the game's
    language, and a dot for a bystander, so that the agents stand out of the grid."""
    marks = {identity: prompts.text(f"display.letter_{identity}") for identity in ("red", "blue", "assassin", "green")}
    return {**marks, "bystander": "."}
