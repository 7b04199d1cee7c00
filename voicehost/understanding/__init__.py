"""Turn what a player said into what they meant: a clue, a guess, a command, or nothing usable.

The speech recognizer (or a typed line in text mode) hands the host a string; this
module reads it in the current game phase and says how sure it is, so the host knows
whether to act at once, ask back first, or say "didn't get that".  It is pure: no
audio, no game state, no I/O except reading the vocabulary files (``vocab/*.toml``)
once per language.  Every word the host listens for lives in those files, not here.

Choices worth knowing (each one is pinned by a test):

* Commands and yes/no words are looked up by exact normalized match *before* any fuzzy
  card matching, so "sim" is YES even with SINO on the board.  If a card's name is
  itself a command phrase (a board with FIM), the command wins when the word is said
  alone; with an article or lead-in ("é o fim") it reaches the card.  The decks avoid
  such words, so this is a corner, not a habit.
* Exact beats fuzzy in both directions: "pasta" is the card PASTA even though it sounds
  like the command "basta", and "basta" is the command even next to PASTA.  A card
  heard only approximately that also sounds like a command is never taken at once:
  the host asks back.
* Words whose meaning depends on the phase ("basta", "chega", "enough", "stop"): while
  guessing they end the turn (PASS); while a clue is awaited they tell the host to be
  quiet (STOP_TALKING).  The vocabulary files keep them in ``[phase_commands]``.
* Word + number is a CLUE in any phase and a bare card name is a GUESS in any phase;
  the rules layer, which knows whose turn it is, says "it's guessing time" or "we need
  a clue first".  In the clue phase a bare word only counts as a guess when it is
  clearly a card; otherwise it is a clue missing its number (REPROMPT).
* Numbers are returned as heard (number words up to 20, digits up to 999); the rules
  layer rejects out-of-range ones with a clear message.
* A low recognizer confidence turns ACCEPT into CONFIRM, with two exceptions: an unsure
  yes/no comes back as UNKNOWN/REPROMPT (confirming a "yes" would loop, so the host asks
  its question again) and read-only commands (repeat, score, read the board...) are
  simply done, since a wrong one costs nothing.
* REPROMPT always comes with intent UNKNOWN, and UNKNOWN always with REPROMPT.
* Letters said one by one with spaces are read greedily: "c e r e j a" is "cereja", but
  "é a c e r e j a" is "eacereja" because "é" and "a" are letters too.  Hyphens
  ("é a c-e-r-e-j-a") or a lead-in of real words ("a pista é c e r e j a") resolve it.
"""

from __future__ import annotations

import math
import re
import tomllib
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache, lru_cache
from importlib import resources
from typing import Any, Final

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from engine.lang import Lang

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
    "ClueHeard",
    "Command",
    "Intent",
    "Phase",
    "Understanding",
    "command_phrases",
    "guess_phrases",
    "listening_phrases",
    "match_card",
    "normalize",
    "spoken_numbers",
    "understand",
]

# ---------------------------------------------------------------------------
# Thresholds.  Scores are rapidfuzz ratios (0..100) between what was heard and a
# card name, both lowercased and without accents.  These are first guesses: they
# will be tuned on recorded recognition data, trading wrong moves against
# annoying questions.  For scale: one wrong letter in a six-letter name scores
# 83, in a four-letter name 75; one missing letter in six scores 91; a
# sounds-alike spelling ("sereja") scores 96.
# ---------------------------------------------------------------------------

ACCEPT_SCORE: Final = 84.0
"""A card scoring at least this, clearly ahead of the others, is taken without asking.

Just above one wrong letter in six: recognizers' slips are mostly sounds-alike (scored
high by the phonetic keys), while one letter off is often another real word, such as a
card already covered (CANDLE said, CRADLE still visible): worth a question."""

CONFIRM_SCORE: Final = 60.0
"""Below this a card is not a plausible reading of what was heard at all."""

MIN_MARGIN: Final = 20.0
"""How far the best card must lead the runner-up to be taken without asking."""

CANDIDATE_SPREAD: Final = 25.0
"""Runners-up offered in a question ("CEREJA ou CEBOLA?") are at most this far behind."""

MAX_CANDIDATES: Final = 3
"""A question offers at most this many cards: more is too long to hear."""

PHONETIC_PENALTY: Final = 4.0
"""A sounds-alike match ("sereja" for CEREJA) scores a little below a spelled-alike one."""

LEFTOVER_PENALTY: Final = 10.0
"""Per word heard besides the card and the known fillers ("talvez cereja"): never accepted."""

COMMAND_SHADOW_EDITS: Final = 1
"""An inexact card match this few letter edits from a command is asked back ("sin": SINO or sim?)."""

LOW_ASR_CONFIDENCE: Final = 0.6
"""Recognizer confidence below this makes the host ask back before acting."""

MAX_TEXT_CHARS: Final = 500
"""Longer transcripts are chatter, not a move; they are not analysed."""

MAX_MATCH_TOKENS: Final = 12
"""Utterances with more words than this (after fillers) are not matched against cards."""


class Phase(Enum):
    """What the game expects now; it decides how a few phase-dependent words are read."""

    CLUE = "clue"
    GUESS = "guess"


class Command(Enum):
    """Things players ask the host that are neither a clue nor a guess."""

    PASS = "pass"
    REPEAT = "repeat"
    READ_BOARD = "read_board"
    SCORE = "score"
    CLUES_SO_FAR = "clues_so_far"
    TIMER_FLIP = "timer_flip"
    TIMER_PAUSE = "timer_pause"
    TIMER_RESUME = "timer_resume"
    UNDO = "undo"
    HELP = "help"
    YES = "yes"
    NO = "no"
    NEW_GAME = "new_game"
    QUIT = "quit"
    STOP_TALKING = "stop_talking"
    ALL_MY_GREENS_FOUND = "all_my_greens_found"


class Intent(Enum):
    """What kind of move the utterance is, whatever the phase allows."""

    CLUE = "clue"
    GUESS = "guess"
    COMMAND = "command"
    UNKNOWN = "unknown"


class Action(Enum):
    """What the host should do with it: act at once, ask back first, or ask again."""

    ACCEPT = "accept"
    CONFIRM = "confirm"
    REPROMPT = "reprompt"


@dataclass(frozen=True)
class ClueHeard:
    """A clue as said: ``word`` lowercased with accents kept; ``number`` None means unlimited."""

    word: str
    number: int | None
    spelled: bool

    @property
    def last_word(self) -> str:
        """The word said last before the number: what a one-word clue is when fillers or a
        self-correction came first ("well, ocean two", "céu, não, espaço, dois")."""
        return self.word if self.spelled else self.word.split()[-1]


@dataclass(frozen=True)
class Candidate:
    """A visible card that could be what was said, with its similarity score (0..100)."""

    card: str
    score: float


@dataclass(frozen=True)
class Understanding:
    """Everything the rules layer needs to act on, or to ask back about, one utterance."""

    heard: str
    intent: Intent
    action: Action
    clue: ClueHeard | None
    card: str | None
    command: Command | None
    candidates: tuple[Candidate, ...]
    confidence: float


# Commands that only read out information: doing a wrong one costs nothing, so they
# are never confirmed, even when the recognizer is unsure.
_READ_ONLY: Final = frozenset(
    {
        Command.REPEAT,
        Command.READ_BOARD,
        Command.SCORE,
        Command.CLUES_SO_FAR,
        Command.HELP,
        Command.STOP_TALKING,
    }
)
_ANSWERS: Final = frozenset({Command.YES, Command.NO})


# ---------------------------------------------------------------------------
# Normalization
# ---------------------------------------------------------------------------

_APOSTROPHES: Final = frozenset("'\u2019\u2018\u02bc`\u00b4")
_PIECE: Final = re.compile(r"-+|'+|[^-']+")
_DIGITS_OR_NOT: Final = re.compile(r"[0-9]+|[^0-9]+")
_SMALL_NUMBER: Final = re.compile(r"[0-9]{1,3}")


@dataclass(frozen=True)
class _Token:
    """One word heard: ``text`` to give back (accents kept), ``key`` to compare (folded)."""

    text: str
    key: str
    sep: str  # what joined it to the previous token: " ", "-", "'" or "" (digit split)
    chunk: int  # which whitespace-separated chunk of the input it came from


def _fold(text: str) -> str:
    """Lowercase without accents: recognizers and typists drop or misplace accents."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _clean_char(ch: str) -> str:
    """Keep letters, digits and marks; mark hyphens and apostrophes; blank the rest."""
    if ch in _APOSTROPHES:
        return "'"
    category = unicodedata.category(ch)
    if category == "Pd":
        return "-"
    if category[0] in "LNM":
        return ch
    return " "


def _tokenize(text: str, join_apostrophes: bool) -> tuple[_Token, ...]:
    """Split into words; hyphens split too but are remembered, for spelled clues."""
    cleaned = "".join(map(_clean_char, unicodedata.normalize("NFKC", text).lower()))
    tokens: list[_Token] = []
    for chunk_index, chunk in enumerate(cleaned.split()):
        if join_apostrophes:  # English: "it's" -> "its", "what's" -> "whats"
            chunk = chunk.replace("'", "")
        first = True
        sep = " "
        for piece in _PIECE.findall(chunk):
            if piece[0] in "-'":  # Italian/Portuguese elision: "l'ancora" -> "l" "ancora"
                sep = piece[0]
                continue
            for part in _DIGITS_OR_NOT.findall(piece):  # "tomate3" -> "tomate" "3"
                key = _fold(part)
                if key:
                    tokens.append(_Token(part, key, " " if first else sep, chunk_index))
                    first = False
                sep = ""
    return tuple(tokens)


def _keys(tokens: Sequence[_Token]) -> tuple[str, ...]:
    return tuple(token.key for token in tokens)


def _text_of(tokens: Sequence[_Token]) -> str:
    """The words as heard, lowercased, accents and inner hyphens kept."""
    return "".join((token.sep if i else "") + token.text for i, token in enumerate(tokens))


class _Phrases:
    """A set of phrases (tuples of folded words), matched as whole runs of words."""

    def __init__(self, phrases: Iterable[tuple[str, ...]]) -> None:
        self._set: frozenset[tuple[str, ...]] = frozenset(p for p in phrases if p)
        self.lengths: tuple[int, ...] = tuple(sorted({len(p) for p in self._set}, reverse=True))

    def __contains__(self, keys: object) -> bool:
        return keys in self._set

    def prefix(self, keys: tuple[str, ...], start: int = 0) -> int:
        """Length of the longest phrase starting at ``start``, 0 if none."""
        for n in self.lengths:
            if start + n <= len(keys) and keys[start : start + n] in self._set:
                return n
        return 0

    def suffix(self, keys: tuple[str, ...], end: int) -> int:
        """Length of the longest phrase ending at ``end``, 0 if none."""
        for n in self.lengths:
            if n <= end and keys[end - n : end] in self._set:
                return n
        return 0


# ---------------------------------------------------------------------------
# Vocabulary data
# ---------------------------------------------------------------------------

_VOCAB_PACKAGE: Final = "voicehost.vocab"
_PhraseMap = Mapping[tuple[str, ...], Command]


@dataclass(frozen=True)
class _Vocab:
    """One language's listening vocabulary, normalized once for matching."""

    lang: Lang
    join_apostrophes: bool
    numbers: Mapping[tuple[str, ...], int]
    number_words: _Phrases
    unlimited: _Phrases
    connectors: _Phrases
    trailers: _Phrases
    hesitations: _Phrases
    fillers: _Phrases
    starters: _Phrases  # stripped before a guess: fillers, lead-ins, articles, yes-words
    clue_starters: _Phrases  # the same plus no-words ("não, tomate três")
    wordy_starters: _Phrases  # starters with a real word in them, safe before spelling
    letters: Mapping[tuple[str, ...], str]
    letter_names: _Phrases
    commands: _PhraseMap
    phase_commands: Mapping[Phase, _PhraseMap]
    command_texts: tuple[str, ...]
    phonetic: tuple[tuple[re.Pattern[str], str], ...]


def _read_table(name: str) -> dict[str, Any]:
    resource = resources.files(_VOCAB_PACKAGE).joinpath(f"{name}.toml")
    return tomllib.loads(resource.read_text(encoding="utf-8"))


def _phrase_key(phrase: str, join_apostrophes: bool) -> tuple[str, ...]:
    return _keys(_tokenize(phrase, join_apostrophes))


def _without(value: Any, drop: frozenset[tuple[str, ...]], join: bool) -> Any:
    """The inherited data minus the phrases a dialect does not use."""
    if isinstance(value, dict):
        return {k: _without(v, drop, join) for k, v in value.items() if _phrase_key(k, join) not in drop}
    if isinstance(value, list):
        return [v for v in value if not (isinstance(v, str) and _phrase_key(v, join) in drop)]
    return value


def _merged(base: Any, over: Any) -> Any:
    """Tables merge key by key, lists add up, anything else is replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = _merged(out[key], value) if key in out else value
        return out
    if isinstance(base, list) and isinstance(over, list):
        return base + [v for v in over if v not in base]
    return over


def _resolved_table(name: str, chain: tuple[str, ...] = ()) -> dict[str, Any]:
    """Read a vocabulary file, applying ``inherits`` (pt-PT builds on pt-BR) and ``forget``."""
    if name in chain:
        raise ValueError(f"vocabulary {name}: inheritance loop {' -> '.join((*chain, name))}")
    table = _read_table(name)
    parent = table.pop("inherits", None)
    forget = table.pop("forget", [])
    if parent is None:
        return table
    if not isinstance(parent, str) or not _is_str_list(forget):
        raise ValueError(f"vocabulary {name}: 'inherits' must be a name, 'forget' a list")
    base = _resolved_table(parent, (*chain, name))
    join = table.get("apostrophe", base.get("apostrophe")) == "join"
    drop = frozenset(_phrase_key(p, join) for p in forget)
    result: dict[str, Any] = _merged(_without(base, drop, join), table)
    return result


def _is_str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _strings(table: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not _is_str_list(value):
        raise ValueError(f"{where}: {key!r} must be a list of strings")
    return [str(v) for v in value]


def _subtable(table: Mapping[str, Any], key: str, where: str) -> dict[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise ValueError(f"{where}: [{key}] must be a table")
    return value


def _command_map(
    raw: Mapping[str, Any], where: str, key_of: Callable[[str], tuple[str, ...]]
) -> dict[tuple[str, ...], Command]:
    out: dict[tuple[str, ...], Command] = {}
    for name, phrases in raw.items():
        try:
            command = Command[name]
        except KeyError:
            raise ValueError(f"{where}: unknown command {name!r}") from None
        if not _is_str_list(phrases):
            raise ValueError(f"{where}: {name} must be a list of phrases")
        for phrase in phrases:
            key = key_of(phrase)
            if out.get(key, command) is not command:
                raise ValueError(f"{where}: {phrase!r} is both {out[key].name} and {name}")
            out[key] = command
    return out


def _build(lang: Lang, table: Mapping[str, Any]) -> _Vocab:
    """Check the data and normalize it the way utterances are normalized."""
    where = f"vocabulary {lang.value}"
    mode = table.get("apostrophe", "split")
    if mode not in ("split", "join"):
        raise ValueError(f"{where}: apostrophe must be 'split' or 'join'")
    join = mode == "join"

    def key_of(phrase: str) -> tuple[str, ...]:
        key = _phrase_key(phrase, join)
        if not key:
            raise ValueError(f"{where}: phrase {phrase!r} has no words")
        return key

    def phrases(name: str) -> list[tuple[str, ...]]:
        return [key_of(p) for p in _strings(table, name, where)]

    numbers: dict[tuple[str, ...], int] = {}
    for word, value in _subtable(table, "numbers", where).items():
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 20:
            raise ValueError(f"{where}: number {word!r} must be an integer 0..20")
        numbers[key_of(word)] = value
    missing_numbers = set(range(21)) - set(numbers.values())
    if missing_numbers:
        raise ValueError(f"{where}: no words for numbers {sorted(missing_numbers)}")

    letters: dict[tuple[str, ...], str] = {}
    for name, letter in _subtable(table, "letters", where).items():
        if not isinstance(letter, str) or len(letter) != 1 or not letter.isalpha():
            raise ValueError(f"{where}: letter name {name!r} must map to one letter")
        letters[key_of(name)] = letter.lower()

    commands = _command_map(_subtable(table, "commands", where), where, key_of)
    phase_commands: dict[Phase, _PhraseMap] = {}
    for phase_name, raw in _subtable(table, "phase_commands", where).items():
        if phase_name not in Phase.__members__ or not isinstance(raw, dict):
            raise ValueError(f"{where}: [phase_commands.{phase_name}] is not a phase table")
        phase_commands[Phase[phase_name]] = _command_map(raw, f"{where} {phase_name}", key_of)
    every = [commands, *phase_commands.values()]
    heard = {command for mapping in every for command in mapping.values()}
    if heard != set(Command):
        missing = sorted(c.name for c in set(Command) - heard)
        raise ValueError(f"{where}: no phrases for {', '.join(missing)}")

    rules: list[tuple[re.Pattern[str], str]] = []
    for rule in table.get("phonetic", []):
        if not _is_str_list(rule) or len(rule) != 2:
            raise ValueError(f"{where}: phonetic rules are [pattern, replacement] pairs")
        try:
            rules.append((re.compile(rule[0]), rule[1]))
        except re.error as error:
            raise ValueError(f"{where}: bad phonetic pattern {rule[0]!r}: {error}") from None

    yes = [k for k, c in commands.items() if c is Command.YES]
    no = [k for k, c in commands.items() if c is Command.NO]
    fillers = phrases("fillers")
    starters = [*fillers, *phrases("lead_ins"), *phrases("articles"), *yes]
    return _Vocab(
        lang=lang,
        join_apostrophes=join,
        numbers=numbers,
        number_words=_Phrases(numbers),
        unlimited=_Phrases(phrases("unlimited")),
        connectors=_Phrases(phrases("number_connectors")),
        trailers=_Phrases(phrases("clue_trailers")),
        hesitations=_Phrases(phrases("hesitations")),
        fillers=_Phrases(fillers),
        starters=_Phrases(starters),
        clue_starters=_Phrases([*starters, *no]),
        wordy_starters=_Phrases(p for p in starters if any(len(w) > 1 for w in p)),
        letters=letters,
        letter_names=_Phrases(letters),
        commands=commands,
        phase_commands=phase_commands,
        command_texts=tuple(sorted({" ".join(k) for mapping in every for k in mapping})),
        phonetic=tuple(rules),
    )


@cache
def _vocab(lang: Lang) -> _Vocab:
    """Loaded on first use, once per language: the data files are the only I/O here."""
    return _build(lang, _resolved_table(lang.value))


# ---------------------------------------------------------------------------
# Pieces of an utterance
# ---------------------------------------------------------------------------


def _strip_start(tokens: Sequence[_Token], phrases: _Phrases, *, keep_one: bool) -> tuple[int, ...]:
    """Where the utterance could begin once lead-ins are dropped: (0, ..., core start)."""
    keys = _keys(tokens)
    bounds = [0]
    while True:
        n = phrases.prefix(keys, bounds[-1])
        if n == 0 or (keep_one and bounds[-1] + n >= len(keys)):
            return tuple(bounds)
        bounds.append(bounds[-1] + n)


def _trim(tokens: Sequence[_Token], vocab: _Vocab) -> tuple[_Token, ...]:
    """Drop hesitations anywhere and politeness at both ends, never everything."""
    keys = _keys(tokens)
    kept: list[_Token] = []
    i = 0
    while i < len(tokens):
        n = vocab.hesitations.prefix(keys, i)
        if n:
            i += n
        else:
            kept.append(tokens[i])
            i += 1
    if not kept:
        return tuple(tokens)
    keys = _keys(kept)
    start, end = 0, len(kept)
    while True:
        n = vocab.fillers.prefix(keys, start)
        if n and start + n < end:
            start += n
            continue
        n = vocab.fillers.suffix(keys, end)
        if n and end - n > start:
            end -= n
            continue
        return tuple(kept[start:end])


def _command(tokens: Sequence[_Token], vocab: _Vocab, phase: Phase) -> Command | None:
    """Exact command phrase, said alone (politeness and hesitations aside)."""
    by_phase = vocab.phase_commands.get(phase, {})
    for keys in (_keys(tokens), _keys(_trim(tokens, vocab))):
        command = by_phase.get(keys) or vocab.commands.get(keys)
        if command is not None:
            return command
    return None


def _spellings(keys: tuple[str, ...], vocab: _Vocab) -> list[str | None]:
    """For each start position, the word spelled from there to the end, if it is all letters.

    A letter is a single character ("c") or a letter's name ("cê", "double u").
    """
    n = len(keys)
    spelled: list[str | None] = [None] * n + [""]
    lengths = sorted({*vocab.letter_names.lengths, 1}, reverse=True)
    for i in range(n - 1, -1, -1):
        for length in lengths:
            rest = spelled[i + length] if i + length <= n else None
            if rest is None:
                continue
            phrase = keys[i : i + length]
            letter = vocab.letters.get(phrase)
            if letter is None and length == 1 and len(phrase[0]) == 1 and phrase[0].isalpha():
                letter = phrase[0]
            if letter is not None:
                spelled[i] = letter + rest
                break
    return spelled


def _explains(prefix: Sequence[_Token], word: str, vocab: _Vocab) -> bool:
    """Whether what precedes a spelling is only lead-ins, or the same word said whole."""
    rest = prefix[_strip_start(prefix, vocab.clue_starters, keep_one=False)[-1] :]
    return not rest or "".join(_keys(rest)) == word


def _spelled(tokens: Sequence[_Token], vocab: _Vocab) -> str | None:
    """A word spelled letter by letter at the end: "c-e-r-e-j-a", "ci e erre e gi a".

    Tried in order: the last hyphenated chunk; everything after lead-ins made of real
    words; the longest run of letters that repeats the word said before it ("cereja,
    c e r e j a").  At least two letters: a lone "a" is an article, not a spelling.
    """
    keys = _keys(tokens)
    spellings = _spellings(keys, vocab)

    def word_from(start: int) -> str | None:
        word = spellings[start] if start < len(keys) else None
        return word if word is not None and len(word) >= 2 else None

    start = len(tokens)
    while start > 0 and tokens[start - 1].chunk == tokens[-1].chunk:
        start -= 1
    word = word_from(start)
    if word is not None and all(t.sep == "-" for t in tokens[start + 1 :]) and _explains(tokens[:start], word, vocab):
        return word
    word = word_from(_strip_start(tokens, vocab.wordy_starters, keep_one=True)[-1])
    if word is not None:
        return word
    for i in range(1, len(tokens) - 1):
        word = word_from(i)
        if word is not None and _explains(tokens[:i], word, vocab):
            return word
    return None


@dataclass(frozen=True)
class _CluePieces:
    """What of a clue was heard; either part may be missing."""

    word: str | None
    spelled: bool
    has_number: bool
    number: int | None  # None with has_number means unlimited


def _number_at(keys: tuple[str, ...], end: int, vocab: _Vocab) -> tuple[int | None, int] | None:
    """(number or None for unlimited, how many words it took) ending at ``end``."""
    if end == 0:
        return None
    if _SMALL_NUMBER.fullmatch(keys[end - 1]):
        return int(keys[end - 1]), 1
    unlimited = vocab.unlimited.suffix(keys, end)
    word = vocab.number_words.suffix(keys, end)
    if unlimited == word == 0:
        return None
    if unlimited >= word:
        return None, unlimited
    return vocab.numbers[keys[end - word : end]], word


def _clue_word(tokens: Sequence[_Token], vocab: _Vocab) -> tuple[str | None, bool]:
    """(clue word, spelled?) from the words before the number; None if only fillers."""
    if not tokens:
        return None, False
    spelled = _spelled(tokens, vocab)
    if spelled is not None:
        return spelled, True
    rest = tokens[_strip_start(tokens, vocab.clue_starters, keep_one=False)[-1] :]
    return (_text_of(rest) if rest else None), False


def _parse_clue(tokens: Sequence[_Token], vocab: _Vocab) -> _CluePieces:
    """Read "word number" in any phrasing the vocabulary knows."""
    keys = _keys(tokens)
    ends = [len(keys)]
    trailer = vocab.trailers.suffix(keys, len(keys))
    if 0 < trailer < len(keys):  # "tomate, três cartas"
        ends.insert(0, len(keys) - trailer)
    for end in ends:
        found = _number_at(keys, end, vocab)
        if found is None:
            continue
        number, size = found
        before = tokens[: end - size]
        connector = vocab.connectors.suffix(_keys(before), len(before))
        if 0 < connector < len(before):  # "fruit for two"
            before = before[:-connector]
        word, spelled = _clue_word(before, vocab)
        return _CluePieces(word, spelled, True, number)
    word, spelled = _clue_word(tokens, vocab)
    return _CluePieces(word, spelled, False, None)


# ---------------------------------------------------------------------------
# Card matching
# ---------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def _sound(text: str, lang: Lang) -> str:
    """A rough pronunciation key: recognizers write what they hear ("sereja")."""
    for pattern, replacement in _vocab(lang).phonetic:
        text = pattern.sub(replacement, text)
    return _fold(text)


@dataclass(frozen=True)
class _CardForm:
    """A card name in the forms it is compared in."""

    name: str
    spaced: str  # "arco iris"
    joined: str  # "arcoiris"
    sound: str
    words: int


@lru_cache(maxsize=4096)
def _card_form(name: str, lang: Lang) -> _CardForm | None:
    tokens = _tokenize(name, _vocab(lang).join_apostrophes)
    if not tokens:
        return None
    keys = _keys(tokens)
    sound = "".join(_sound(t.text, lang) for t in tokens)
    return _CardForm(name, " ".join(keys), "".join(keys), sound, len(keys))


@dataclass(frozen=True)
class _Scored:
    """A card's best score and whether it was heard alone (full) and letter for letter."""

    card: str
    score: float
    full: bool
    exact: bool


@dataclass(frozen=True)
class _View:
    """One reading of (part of) the utterance to compare with the cards."""

    spaced: str
    joined: str
    sound: str
    full: bool
    leftover: int


def _views(tokens: Sequence[_Token], vocab: _Vocab, max_words: int) -> list[_View]:
    """Every run of words that could be the card, and how much of the utterance it leaves."""
    n = len(tokens)
    bounds = _strip_start(tokens, vocab.starters, keep_one=True)
    core = bounds[-1]
    keys = _keys(tokens)
    sounds = [_sound(t.text, vocab.lang) for t in tokens]
    views: list[_View] = []
    for i in range(n):
        for j in range(i + 1, min(n, i + max_words) + 1):
            full = j == n and i in bounds
            leftover = 0 if full else max(1, (n - core) - max(0, j - max(i, core)))
            window = keys[i:j]
            views.append(_View(" ".join(window), "".join(window), "".join(sounds[i:j]), full, leftover))
    spelled = _spelled(tokens, vocab)
    if spelled is not None:
        views.append(_View(spelled, spelled, _sound(spelled, vocab.lang), True, 0))
    return views


def _rank(tokens: Sequence[_Token], cards: Sequence[str], vocab: _Vocab) -> list[_Scored]:
    """All visible cards scored against the utterance, best first."""
    forms: list[_CardForm] = []
    seen: set[str] = set()
    for card in cards:
        form = _card_form(card, vocab.lang) if card not in seen else None
        seen.add(card)
        if form is not None:
            forms.append(form)
    if not forms or not tokens or len(tokens) > MAX_MATCH_TOKENS:
        return []
    views = _views(tokens, vocab, max(f.words for f in forms) + 1)
    ranked: list[_Scored] = []
    for form in forms:
        best = _Scored(form.name, 0.0, False, False)
        for view in views:
            plain = max(fuzz.ratio(view.spaced, form.spaced), fuzz.ratio(view.joined, form.joined))
            sound = fuzz.ratio(view.sound, form.sound) - PHONETIC_PENALTY
            score = max(plain, sound)
            if not view.full:
                score -= LEFTOVER_PENALTY * view.leftover
            exact = view.full and plain == 100.0
            if (score, exact, view.full) > (best.score, best.exact, best.full):
                best = _Scored(form.name, max(0.0, score), view.full, exact)
        ranked.append(best)
    ranked.sort(key=lambda s: s.score, reverse=True)  # stable: board order breaks ties
    return ranked


def _sounds_like_command(tokens: Sequence[_Token], vocab: _Vocab) -> bool:
    """Whether the words are a slip away from a command phrase ("sin" vs "sim").

    Counted in letter edits, not as a ratio: short commands ("sim", "não", "no") are the
    dangerous ones, and a ratio would also flag long words that merely share letters.
    """
    core = tokens[_strip_start(tokens, vocab.starters, keep_one=True)[-1] :]
    for part in {" ".join(_keys(tokens)), " ".join(_keys(core))}:
        if process.extractOne(
            part,
            vocab.command_texts,
            scorer=Levenshtein.distance,
            score_cutoff=COMMAND_SHADOW_EDITS,
        ):
            return True
    return False


def _guess_action(ranked: Sequence[_Scored], tokens: Sequence[_Token], vocab: _Vocab) -> Action:
    """Act at once only on a clear winner; ask back when two cards are close or it is vague."""
    if not ranked or ranked[0].score < CONFIRM_SCORE:
        return Action.REPROMPT
    best = ranked[0]
    runner_up = ranked[1].score if len(ranked) > 1 else 0.0
    if best.exact and runner_up < best.score:
        return Action.ACCEPT  # exactly a card name: no fuzzy command can outvote it
    if (
        best.full
        and best.score >= ACCEPT_SCORE
        and best.score - runner_up >= MIN_MARGIN
        and not _sounds_like_command(tokens, vocab)
    ):
        return Action.ACCEPT
    return Action.CONFIRM


def _candidates(ranked: Sequence[_Scored]) -> tuple[Candidate, ...]:
    if not ranked or ranked[0].score < CONFIRM_SCORE:
        return ()
    floor = max(CONFIRM_SCORE, ranked[0].score - CANDIDATE_SPREAD)
    return tuple(Candidate(s.card, round(min(100.0, s.score), 1)) for s in ranked if s.score >= floor)[:MAX_CANDIDATES]


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def _asr(value: float | None) -> float | None:
    """Recognizer confidence clamped to 0..1; nonsense (NaN) counts as not given."""
    if value is None or not math.isfinite(value):
        return None
    return min(1.0, max(0.0, float(value)))


def _unsure(asr: float | None) -> bool:
    return asr is not None and asr < LOW_ASR_CONFIDENCE


def _unknown(text: str) -> Understanding:
    return Understanding(text, Intent.UNKNOWN, Action.REPROMPT, None, None, None, (), 0.0)


def _command_result(text: str, command: Command, asr: float | None) -> Understanding:
    """A command, acted on unless the recognizer is unsure and acting would change the game."""
    confidence = 1.0 if asr is None else asr
    if _unsure(asr) and command in _ANSWERS:
        return _unknown(text)  # asking "did you say yes?" would loop: ask the question again
    action = Action.CONFIRM if _unsure(asr) and command not in _READ_ONLY else Action.ACCEPT
    return Understanding(text, Intent.COMMAND, action, None, None, command, (), confidence)


@cache
def listening_phrases(lang: Lang) -> tuple[str, ...]:
    """Every command and yes/no phrase as written, accents kept: a vosk grammar needs the words the
    model knows, and "não" is not "nao" to it."""
    table = _resolved_table(lang.value)
    tables = [_subtable(table, "commands", lang.value), *_subtable(table, "phase_commands", lang.value).values()]
    phrases = [phrase.lower() for mapping in tables for listed in mapping.values() for phrase in listed]
    return tuple(dict.fromkeys(phrases))


@cache
def guess_phrases(lang: Lang) -> tuple[str, ...]:
    """What a player may say while guessing besides a card, as written: every command and yes/no
    phrase, and the lead-ins and articles said before a card ("eu acho que é o ..."). A closed
    grammar needs them, or their words go to the nearest card or filler."""
    table = _resolved_table(lang.value)
    around = [p.lower() for key in ("lead_ins", "articles") for p in _strings(table, key, lang.value)]
    return tuple(dict.fromkeys((*listening_phrases(lang), *around)))


@cache
def command_phrases(lang: Lang, command: Command) -> tuple[str, ...]:
    """Every phrase of one command as written (accents kept): a recognizer may score them as candidates."""
    table = _resolved_table(lang.value)
    tables = [_subtable(table, "commands", lang.value), *_subtable(table, "phase_commands", lang.value).values()]
    phrases = [phrase for mapping in tables for phrase in mapping.get(command.name, ())]
    return tuple(dict.fromkeys(phrases))


@cache
def spoken_numbers(lang: Lang, *, up_to: int = 9) -> tuple[tuple[str, int | None], ...]:
    """Each way the language says a clue's number up to ``up_to``, as written (accents kept), and
    its value (None: unlimited): a recognizer can score them as the closed set a clue ends with."""
    table = _resolved_table(lang.value)
    where = f"vocab/{lang.value}"
    numbers = [(str(word), int(value)) for word, value in _subtable(table, "numbers", where).items()]
    spoken: list[tuple[str, int | None]] = [(word, value) for word, value in numbers if value <= up_to]
    spoken += [(phrase, None) for phrase in _strings(table, "unlimited", where)]
    return tuple(spoken)


def normalize(text: str, lang: Lang) -> str:
    """The comparison form used here (lowercase, no accents or punctuation, one space).

    Useful to the rules layer, e.g. to check that a clue is not a visible card's name.
    """
    return " ".join(_keys(_tokenize(text[:MAX_TEXT_CHARS], _vocab(lang).join_apostrophes)))


def match_card(text: str, cards: Sequence[str], lang: Lang) -> tuple[Candidate, ...]:
    """The visible cards that ``text`` could name, best first; empty when none is plausible.

    Command and yes/no phrases never name a card here either, whatever the board.
    """
    vocab = _vocab(lang)
    if len(text) > MAX_TEXT_CHARS:
        return ()
    tokens = _tokenize(text, vocab.join_apostrophes)
    if not tokens or any(_command(tokens, vocab, phase) for phase in Phase):
        return ()
    return _candidates(_rank(_trim(tokens, vocab), cards, vocab))


def understand(
    text: str,
    *,
    phase: Phase,
    cards: Sequence[str],
    lang: Lang,
    asr_confidence: float | None = None,
) -> Understanding:
    """Read one utterance in the current phase; never raises on any input string.

    Order matters: exact commands first (so a yes/no is never a card), then a
    word + number clue, then the visible cards, fuzzily.
    """
    vocab = _vocab(lang)
    asr = _asr(asr_confidence)
    if len(text) > MAX_TEXT_CHARS:
        return _unknown(text)
    tokens = _tokenize(text, vocab.join_apostrophes)
    if not tokens:
        return _unknown(text)

    command = _command(tokens, vocab, phase)
    if command is not None:
        return _command_result(text, command, asr)

    core = _trim(tokens, vocab)
    clue = _parse_clue(core, vocab)
    if clue.word is not None and clue.has_number:
        action = Action.CONFIRM if _unsure(asr) else Action.ACCEPT
        heard = ClueHeard(clue.word, clue.number, clue.spelled)
        confidence = 1.0 if asr is None else asr
        return Understanding(text, Intent.CLUE, action, heard, None, None, (), confidence)

    ranked = _rank(core, cards, vocab)
    action = _guess_action(ranked, core, vocab)
    if action is Action.REPROMPT or (phase is Phase.CLUE and action is not Action.ACCEPT):
        # In the clue phase a vague word is a clue without its number, not a guess.
        return _unknown(text)
    if action is Action.ACCEPT and _unsure(asr):
        action = Action.CONFIRM
    best = ranked[0]
    confidence = min(1.0, best.score / 100.0) * (1.0 if asr is None else asr)
    return Understanding(text, Intent.GUESS, action, None, best.card, None, _candidates(ranked), confidence)
