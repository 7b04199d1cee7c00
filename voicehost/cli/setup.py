"""What `play` and `deal` build from the command line: the language, a board, the variants."""

from __future__ import annotations

import argparse
import locale
import os
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from engine.board import Board, deal_competitive, deal_duet
from engine.decks import picture_names, words
from engine.errors import BoardError
from engine.lang import Lang
from engine.pieces import GRID_5X4, GRID_5X5, Edition, Side, Team
from engine.variants import HouseRules, Variants
from voicehost.cli.failures import UserError
from voicehost.storage.documents import BoardDocument, DocumentError, check
from voicehost.storage.errors import StorageError
from voicehost.storage.reading import MiB, load_json

MAX_BOARD_BYTES: Final = 1 * MiB


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


def deal_board(args: argparse.Namespace, lang: Lang, knows: Callable[[str], bool] | None = None) -> Board:
    """A random board as the options ask; `knows`: whether the recognizer can hear a card (vosk: the
    model's vocabulary), and then the cards it knows are preferred (`preferred`), the deal still seeded."""
    edition = Edition(args.edition or "classic")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    deck_kind = args.deck or ("pictures" if edition is Edition.PICTURES else "words")
    deck: list[str] = []
    if deck_kind in ("words", "mixed"):
        deck += words(lang)
    if deck_kind in ("pictures", "mixed"):
        deck += [name for name in picture_names(lang) if name not in deck]
    grid = {"5x5": GRID_5X5, "5x4": GRID_5X4}.get(args.grid or "")
    if knows is not None:
        shape = GRID_5X5 if edition is Edition.DUET else grid or (GRID_5X4 if edition is Edition.PICTURES else GRID_5X5)
        deck = preferred(deck, knows, shape.cells, rng)
    if edition is Edition.DUET:
        return deal_duet(deck, lang, rng, first_clue_giver=Side(args.first) if args.first else None)
    return deal_competitive(
        deck, lang, rng, edition=edition, grid=grid, starting_team=Team(args.starting) if args.starting else None
    )


def preferred(deck: Sequence[str], knows: Callable[[str], bool], cells: int, rng: random.Random) -> list[str]:
    """The deck a board is drawn from when the recognizer cannot hear every card: the cards it knows,
    when there are enough of them for a board; otherwise all of them and, drawn with the deal's own
    random generator, just enough of the others (to be named by their place)."""
    known = [card for card in deck if knows(card)]
    if not known:
        return list(deck)  # nothing to prefer: the deal is the plain one
    if len(known) >= cells:
        return known
    heard = set(known)
    others = [card for card in deck if card not in heard]
    return known + rng.sample(others, min(len(others), cells - len(known)))


def vocabulary_knows(engine: str | None, model: Path | None, lang: Lang) -> Callable[[str], bool] | None:
    """Whether the recognizer a game by voice would use can hear a card: vosk's model vocabulary (its
    graph, loaded alone), None for whisper (it hears any word) or when no model is installed."""
    from voicehost.speech_models import ModelError
    from voicehost.speech_models.choice import choose_engine

    try:
        choice = choose_engine(engine, model, lang)
        if choice.engine != "vosk":
            return None
        from voicehost.ears.recognizers.vosk.vocabulary import VoskVocabulary, cards_unheard

        check = cards_unheard(VoskVocabulary(choice.model_dir).unheard, lang)
    except ModelError:
        return None  # the game by voice says what to install; a deal goes on without the check
    return lambda card: not check([card])


def read_board(path: Path) -> Board:
    """A board file, refused with the reason (its shape, then the rules of its edition)."""
    try:
        data = load_json(path, MAX_BOARD_BYTES, "board file")
        check(BoardDocument, data)
        return Board.from_dict(data)
    except (StorageError, DocumentError, BoardError) as exc:
        raise UserError(f"{path} cannot be played: {exc}") from None


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
        duet_tokens=args.tokens or 9,
        duet_relaxed_order=args.relaxed_order,
        mission=args.mission,
        house=house,
    )


def next_game_args(args: argparse.Namespace, board: Board) -> dict[str, Any]:
    """How to deal the next game in this session: like this one, with a fresh key."""
    chosen = {name: getattr(args, name) for name in ("grid", "deck", "starting", "first")}
    chosen["edition"] = board.edition.value
    chosen["grid"] = chosen["grid"] or f"{board.grid.columns}x{board.grid.rows}"
    return chosen
