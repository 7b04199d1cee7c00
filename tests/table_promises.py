"""What a whole game by voice must give the table, whatever the voice: the tests' bounds on the bench's
tally (bench/players.py). How much each costs, per language and condition, is the bench's to measure
(`python -m bench --sections table`); these only say when a game stops being playable."""

from __future__ import annotations

from typing import Final

from bench.players import Tally

MAX_LOST: Final = 2
"""Moves said four times and never done (a card or a clue word the model cannot hear, given up)."""
MAX_WRONG_REVEALS: Final = 1
MAX_QUESTIONS_PER_MOVE: Final = 1.0
"""The host's questions back ("SHERIFF?", "music: how many?") over the moves done, the goodbye's apart."""


def broken_promises(tally: Tally) -> list[str]:
    """Each promise the game broke, said plainly (none: the table could play it)."""
    broken: list[str] = []
    if not tally.ended:
        broken.append(f"the game did not end ({tally.unfinished or 'the players stopped'})")
    reveals = tally.wrong_reveals
    if len(reveals) > MAX_WRONG_REVEALS:
        broken.append(f"cards revealed that nobody said: {reveals}")
    if any(wrong.ended_game for wrong in tally.wrong):
        broken.append(f"something nobody meant ended the game: {tally.wrong}")
    if not all(wrong.undone for wrong in tally.wrong):
        broken.append(f"not taken back by voice: {[wrong for wrong in tally.wrong if not wrong.undone]}")
    if len(tally.lost) > MAX_LOST:
        broken.append(f"moves never heard: {tally.lost}")
    if tally.move_questions > MAX_QUESTIONS_PER_MOVE * tally.moves_done:
        broken.append(f"{tally.move_questions} questions for {tally.moves_done} moves")
    return broken
