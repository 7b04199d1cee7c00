"""Turn what a player said into what they meant: a clue, a guess, a command, or nothing usable.

The speech recognizer (or a typed line in text mode) hands the host a string; this package reads it
in the current game phase and says how sure it is, so the host knows whether to act at once, ask
back first, or say "didn't get that". It is pure: no audio, no game state, no I/O except reading
the vocabulary files (``voicehost/vocab/*.toml``) once per language. By job:

- `vocabulary`: the words the host listens for, one `Vocabulary` per language, loaded from the files;
- `text`: tokens and phrase matching; `commands`: commands said alone; `clues`: word + number and
  spelled words; `cards`: fuzzy card matching; `sides`: a Duet player naming a side;
- `results`: one result type per intent; `recognize`: `understand`, which puts them together.

Choices worth knowing (each one is pinned by a test):

* Commands and yes/no words are looked up by exact normalized match *before* any fuzzy
  card matching, so "sim" is YES even with SINO on the board.  If a card's name is
  itself a command phrase (a board with FIM), the command wins when the word is said
  alone; with an article or lead-in ("é o fim") it reaches the card.
* Exact beats fuzzy in both directions: "pasta" is the card PASTA even though it sounds
  like the command "basta", and "basta" is the command even next to PASTA.  A card
  heard only approximately that also sounds like a command is never taken at once.
* Words whose meaning depends on the phase ("basta", "chega", "enough", "stop"): while
  guessing they end the turn (PASS); while a clue is awaited they tell the host to be
  quiet (STOP_TALKING).  The vocabulary files keep them in ``[phase_commands]``.
* Word + number is a CLUE in any phase and a bare card name is a GUESS in any phase;
  the rules layer, which knows whose turn it is, says "it's guessing time" or "we need
  a clue first".  In the clue phase a bare word only counts as a guess when it is
  clearly a card; otherwise it is a clue missing its number (REPROMPT).
* A low recognizer confidence turns ACCEPT into CONFIRM, with two exceptions: an unsure
  yes/no comes back as NotUnderstood (confirming a "yes" would loop) and read-only
  commands (repeat, score, read the board...) are simply done, since a wrong one costs nothing.
* Letters said one by one with spaces are read greedily: "c e r e j a" is "cereja", but
  "é a c e r e j a" is "eacereja" because "é" and "a" are letters too.  Hyphens
  ("é a c-e-r-e-j-a") or a lead-in of real words ("a pista é c e r e j a") resolve it.
"""

from __future__ import annotations

from voicehost.understanding.cards import (
    ACCEPT_SCORE,
    CANDIDATE_SPREAD,
    CONFIRM_SCORE,
    LEFTOVER_PENALTY,
    MAX_CANDIDATES,
    MAX_MATCH_TOKENS,
    MIN_MARGIN,
    PHONETIC_PENALTY,
)
from voicehost.understanding.commands import COMMAND_SHADOW_EDITS
from voicehost.understanding.positions import Grid
from voicehost.understanding.recognize import LOW_ASR_CONFIDENCE, match_card, normalize, understand
from voicehost.understanding.results import (
    Action,
    Candidate,
    Command,
    HeardClue,
    HeardCommand,
    HeardGuess,
    HeardNumber,
    HeardWord,
    Intent,
    NotUnderstood,
    OffGrid,
    Phase,
    SpokenClue,
    Understanding,
)
from voicehost.understanding.sides import side_named
from voicehost.understanding.text import MAX_TEXT_CHARS
from voicehost.understanding.vocabulary import (
    Vocabulary,
    command_phrases,
    guess_phrases,
    listening_phrases,
    spoken_numbers,
    vocabulary,
)

__all__ = [
    "ACCEPT_SCORE",
    "CANDIDATE_SPREAD",
    "COMMAND_SHADOW_EDITS",
    "CONFIRM_SCORE",
    "LEFTOVER_PENALTY",
    "LOW_ASR_CONFIDENCE",
    "MAX_CANDIDATES",
    "MAX_MATCH_TOKENS",
    "MAX_TEXT_CHARS",
    "MIN_MARGIN",
    "PHONETIC_PENALTY",
    "Action",
    "Candidate",
    "Command",
    "Grid",
    "HeardClue",
    "HeardCommand",
    "HeardGuess",
    "HeardNumber",
    "HeardWord",
    "Intent",
    "NotUnderstood",
    "OffGrid",
    "Phase",
    "SpokenClue",
    "Understanding",
    "Vocabulary",
    "command_phrases",
    "guess_phrases",
    "listening_phrases",
    "match_card",
    "normalize",
    "side_named",
    "spoken_numbers",
    "understand",
    "vocabulary",
]
