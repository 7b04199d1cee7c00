"""A card named by its place on the grid: "linha dois, coluna três", "second row, third", "B3".

The grid is labelled as the display shows it: columns are letters from the left (A, B, C, ...), rows
are numbers from the top (1, 2, 3, ...); "B3" is column B, row 3, and "row two column three" is row 2,
column 3 (C2). The words of each language are in the vocabulary files (`[positions]` in
`voicehost/vocab/*.toml`): the words for a row and a column, ordinals, "last" and "middle", words said
between them that name nothing ("the one in the ..."), and whole places ("top left").

A place is read only when every word of the utterance is one of these: a clue or a card name with a
number in it is never taken for a place. Values counted from the end ("last", "middle") are resolved
against the grid's size, so the same words work on a 5x5 and a 5x4 grid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from engine.lang import Lang
from voicehost.understanding.text import Phrases, Token, keys_of, tokenize
from voicehost.understanding.vocabulary import resolved_table, strings, subtable, vocabulary

LAST: Final = 101
"""A value counted from the end: the last row or column."""
MIDDLE: Final = 100
"""The middle row or column (the upper middle of an even count)."""
PENULTIMATE: Final = 102

FROM_END: Final = 200
"""A value FROM_END + k is the k-th counted from the end ("second from the right")."""
_SIDES: Final = ("left", "right", "top", "bottom")

MAX_VALUE: Final = 9
"""Numbers above this are no place on any grid: "row twelve" is not read as a place."""


@dataclass(frozen=True)
class Grid:
    """The board as places: every card, covered or not, row-major, and how many columns a row has."""

    cards: tuple[str, ...]
    columns: int

    @property
    def rows(self) -> int:
        return len(self.cards) // self.columns if self.columns else 0

    def card_at(self, row: int, column: int) -> str | None:
        """The card at a 1-based row and column; None off the grid."""
        if not (1 <= row <= self.rows and 1 <= column <= self.columns):
            return None
        return self.cards[(row - 1) * self.columns + (column - 1)]

    def place_of(self, index: int) -> str:
        """The label of a card's place, as the display shows it ("B3": column B, row 3)."""
        return label(index // self.columns + 1, index % self.columns + 1)


def label(row: int, column: int) -> str:
    """ "B3": the column's letter, then the row's number."""
    return f"{chr(ord('A') + column - 1)}{row}" if 1 <= column <= 26 else f"{column}/{row}"


@dataclass(frozen=True)
class Place:
    """A place as said: 1-based row and column, or LAST / MIDDLE / PENULTIMATE, before the grid is known."""

    row: int
    column: int

    def on(self, grid: Grid) -> tuple[int, int]:
        """The row and column on this grid (a value counted from the end resolved)."""
        return _resolve(self.row, grid.rows), _resolve(self.column, grid.columns)


def _resolve(value: int, size: int) -> int:
    if value > FROM_END:
        return size + 1 - _resolve(value - FROM_END, size)
    if value == LAST:
        return size
    if value == PENULTIMATE:
        return size - 1
    if value == MIDDLE:
        return (size + 1) // 2
    return value


@dataclass(frozen=True)
class _Words:
    rows: Phrases
    columns: Phrases
    fillers: Phrases
    after_ordinal: Phrases  # "one" in "the fourth one": dropped after an ordinal, a number elsewhere
    ordinals: Mapping[tuple[str, ...], int]
    ordinal_phrases: Phrases
    cardinals: Mapping[tuple[str, ...], int]
    cardinal_phrases: Phrases
    places: Mapping[tuple[str, ...], Place]
    letters: Mapping[tuple[str, ...], str]
    letter_phrases: Phrases
    counting: Mapping[tuple[str, ...], int]  # "from the right": an index into _SIDES
    counting_phrases: Phrases


def _value(raw: Any, where: str) -> int:
    if raw == "last":
        return LAST
    if raw == "middle":
        return MIDDLE
    if raw == "penultimate":
        return PENULTIMATE
    if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= MAX_VALUE:
        return raw
    raise ValueError(f"{where}: a place's value is 1..{MAX_VALUE}, 'last', 'middle' or 'penultimate', not {raw!r}")


@cache
def _words(lang: Lang) -> _Words:
    table = resolved_table(lang.value)
    where = f"vocabulary {lang.value} [positions]"
    data = subtable(table, "positions", lang.value)
    vocab = vocabulary(lang)

    def key(phrase: str) -> tuple[str, ...]:
        found = keys_of(tokenize(phrase, vocab.join_apostrophes))
        if not found:
            raise ValueError(f"{where}: phrase {phrase!r} has no words")
        return found

    def phrases(name: str) -> list[tuple[str, ...]]:
        return [key(p) for p in strings(data, name, where)]

    ordinals = {key(word): _value(value, where) for word, value in subtable(data, "ordinals", where).items()}
    cardinals = {words: value for words, value in vocab.numbers.items() if 1 <= value <= MAX_VALUE}
    places: dict[tuple[str, ...], Place] = {}
    said_around = [key(p) for name in ("fillers", "lead_ins", "articles") for p in strings(table, name, lang.value)]
    fillers = Phrases([*phrases("fillers"), *said_around, *vocab.hesitations.phrases()])
    counting: dict[tuple[str, ...], int] = {}
    for phrase, side in subtable(data, "counting", where).items():
        if side not in _SIDES:
            raise ValueError(f"{where}: counting {phrase!r} must be one of {', '.join(_SIDES)}")
        counting[key(phrase)] = _SIDES.index(side)
    for phrase, value in subtable(data, "places", where).items():
        if not isinstance(value, list) or len(value) != 2:
            raise ValueError(f"{where}: place {phrase!r} must be [row, column]")
        places[_content(key(phrase), fillers)] = Place(_value(value[0], where), _value(value[1], where))
    letters = {words: letter for words, letter in vocab.letters.items() if letter.isascii()}
    letters.update({(chr(c),): chr(c) for c in range(ord("a"), ord("z") + 1)})
    return _Words(
        rows=Phrases(phrases("rows")),
        columns=Phrases(phrases("columns")),
        fillers=fillers,
        after_ordinal=Phrases(phrases("after_ordinal")),
        ordinals=ordinals,
        ordinal_phrases=Phrases(ordinals),
        cardinals=cardinals,
        cardinal_phrases=Phrases(cardinals),
        places=places,
        letters=letters,
        letter_phrases=Phrases(letters),
        counting=counting,
        counting_phrases=Phrases(counting),
    )


@cache
def position_phrases(lang: Lang, columns: int, rows: int) -> tuple[tuple[str, int, int], ...]:
    """The plainest ways to say each place of a grid, as written (accents kept), with its row and column:
    "linha dois coluna três". What a closed-set recognizer scores or a grammar holds."""
    table = resolved_table(lang.value)
    data = subtable(table, "positions", lang.value)
    row_word = strings(data, "rows", lang.value)[0]
    column_word = strings(data, "columns", lang.value)[0]
    numbers = subtable(table, "numbers", lang.value)
    spoken: dict[int, str] = {}
    for word, value in numbers.items():  # the longest way of saying it: "uno", not "un"; "two", not "to"
        if isinstance(value, int) and not word.isdigit() and len(word) > len(spoken.get(value, "")):
            spoken[value] = word
    out = []
    for row in range(1, rows + 1):
        for column in range(1, columns + 1):
            out.append((f"{row_word} {spoken[row]} {column_word} {spoken[column]}", row, column))
    return tuple(out)


@cache
def lettered_phrases(lang: Lang, columns: int, rows: int) -> tuple[str, ...]:
    """Each place as its column's letter name and its row's number, as written ("bê três", "bee three")."""
    table = resolved_table(lang.value)
    names: dict[str, str] = {}
    for name, letter in subtable(table, "letters", lang.value).items():
        names.setdefault(str(letter).lower(), str(name))
    spoken = {row: phrase.split()[1] for phrase, row, column in position_phrases(lang, 1, rows)}
    out = []
    for column in range(1, columns + 1):
        letter = chr(ord("a") + column - 1)
        for row in range(1, rows + 1):
            out.append(f"{names.get(letter, letter)} {spoken[row]}")
    return tuple(out)


SCORED_SIZE: Final = 5
"""The ears score the places of the largest grid (5x5): the decision drops those off the board."""
SIMILAR_WORD: Final = 66.0
"""How alike (rapidfuzz's ratio, 0-100) a transcript's word and a place word must be for the utterance to
sound like a place: "Rho", "Lína", "columa" and "rega" are, for row, linha, coluna and riga."""
MIN_SIMILAR_CHARS: Final = 3
"""Shorter words are not compared ("a", "é", "o" are articles as often as column letters)."""


@dataclass(frozen=True)
class ScoredPlace:
    """One way of saying a place, as the ears score it: `long` for the row-and-column phrase."""

    phrase: str
    row: int
    column: int
    long: bool


@cache
def scored_places(lang: Lang) -> tuple[ScoredPlace, ...]:
    """Each place of the largest grid in the four ways the ears score it as a transcript: the
    row-and-column phrase in words ("linha dois coluna três") and in digits ("linha 2 coluna 3", as
    Whisper writes numbers), the label ("C2") and the column's letter name with the row ("cê dois").
    Each way wins where the others lose: on the tuning voices, clean, the place meant was scored first
    89 % of the time with all four, 79 % with words and label, 49 % with the label alone."""
    size = SCORED_SIZE
    table = resolved_table(lang.value)
    data = subtable(table, "positions", lang.value)
    row_word = strings(data, "rows", lang.value)[0]
    column_word = strings(data, "columns", lang.value)[0]
    lettered = lettered_phrases(lang, size, size)
    found: dict[str, ScoredPlace] = {}
    for phrase, row, column in position_phrases(lang, size, size):
        digits = f"{row_word} {row} {column_word} {column}"
        short = (label(row, column), lettered[(column - 1) * size + (row - 1)])
        for said in (phrase, digits, *short):
            found.setdefault(said, ScoredPlace(said, row, column, said not in short))
    return tuple(found.values())


@cache
def _place_like_words(lang: Lang) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
    """The words a place is said with, folded and long enough to compare: those of a row or a column
    ("linha", "coluna"); every other (ordinals, the letters' names, the grid's numbers); and the words
    said around a move ("I think it's the"), never compared: "the" is too like "three" to count."""
    words = _words(lang)
    framing = {w for phrases in (words.rows, words.columns) for phrase in phrases.phrases() for w in phrase}
    naming = {w for phrases in (words.ordinal_phrases, words.letter_phrases) for p in phrases.phrases() for w in p}
    naming |= {w for phrase, value in words.cardinals.items() if value <= SCORED_SIZE for w in phrase}
    around = frozenset(w for phrase in words.fillers.phrases() for w in phrase)

    def comparable(found: set[str]) -> tuple[str, ...]:
        return tuple(sorted(w for w in found if len(w) >= MIN_SIMILAR_CHARS))

    return comparable(framing), comparable(naming | framing), around


@cache
def place_words(lang: Lang) -> frozenset[str]:
    """Every word of every way of saying a place of the largest grid, folded: its phrases ("linha dois
    coluna três"), the letters' names ("cê dois"), and the letters and numbers as written ("C2")."""
    phrases = [*(phrase for phrase, _, _ in position_phrases(lang, SCORED_SIZE, SCORED_SIZE))]
    phrases += lettered_phrases(lang, SCORED_SIZE, SCORED_SIZE)
    join = vocabulary(lang).join_apostrophes
    letters = {chr(ord("a") + column) for column in range(SCORED_SIZE)}
    spoken = {word for phrase in phrases for key in keys_of(tokenize(phrase, join)) for word in key.split()}
    return frozenset({*letters, *map(str, range(1, SCORED_SIZE + 1)), *spoken})


def places_to_score(text: str, lang: Lang) -> tuple[str, ...]:
    """The ways of saying a place worth scoring for this transcript, cheap and generous: all four when a
    word is like a row's or a column's ("Rho 2 column 3", "Lína-vos columa"); the short ones ("C2",
    "cê dois") when a digit is in it or a word is like a letter's name, a number or an ordinal ("Se
    dois"); none otherwise. Scoring the places costs about as much again as the cards, so it is paid
    only then. SIMILAR_WORD was chosen on the tuning voices' transcripts (clean, babble and reverb at
    10 dB): at 60, 66, 70 and 75, the short ways were let through for 86/63, 80/56, 70/36, 64/33 % of
    places and 43/48, 26/32, 10/15, 7/14 % of cards said by name; the long ways, at 66, for 96/49 % of
    places said by row and column and 4/5 % of names. 66 keeps four places in five."""
    from rapidfuzz import fuzz, process

    framing, any_place, around = _place_like_words(lang)
    words = [w for token in tokenize(text, vocabulary(lang).join_apostrophes) for w in token.key.split()]
    words = [w for w in words if len(w) >= MIN_SIMILAR_CHARS and w not in around]

    def like(choices: tuple[str, ...]) -> bool:
        return any(process.extractOne(w, choices, scorer=fuzz.ratio, score_cutoff=SIMILAR_WORD) for w in words)

    ways = scored_places(lang)
    if like(framing):
        return tuple(way.phrase for way in ways)
    if any(ch.isdigit() for ch in text) or like(any_place):
        return tuple(way.phrase for way in ways if not way.long)
    return ()


GARBLED_WORDS: Final = 2
"""A transcript of at most this many words besides those said around a move ("I think it's the") may be a
short place heard past recognition: "alma" and "ou" for "A1", "Sinois" for "cê dois", "de símpode" for "B5"."""


def garbled_place_ways(text: str, lang: Lang) -> tuple[str, ...]:
    """The short ways of saying a place ("C2", "cê dois"), when `places_to_score` found no word like a
    place's but the transcript is short enough to be one garbled (GARBLED_WORDS): the ears score them when
    the transcript names no card either, so a place lost in transcription is still heard as one."""
    _, _, around = _place_like_words(lang)
    words = [w for token in tokenize(text, vocabulary(lang).join_apostrophes) for w in token.key.split()]
    if not words or len([w for w in words if w not in around]) > GARBLED_WORDS:
        return ()
    return tuple(way.phrase for way in scored_places(lang) if not way.long)


# ---- reading an utterance ------------------------------------------------------------------------

_ROW, _COLUMN, _ORDINAL, _CARDINAL, _FROM = "row", "column", "ordinal", "cardinal", "from"


def place_in(tokens: Sequence[Token], lang: Lang, *, letters: bool = True) -> Place | None:
    """The place the words name, or None when they are not (only) a place. `letters`: read "B3" too."""
    words = _words(lang)
    keys = keys_of(tokens)
    if not keys:
        return None
    content = _content(keys, words.fillers)
    if content in words.places:
        return words.places[content]
    if letters:
        place = _lettered(keys, words)
        if place is not None:
            return place
    return _marked(_items(keys, words))


def _content(keys: tuple[str, ...], fillers: Phrases) -> tuple[str, ...]:
    """The words that are not fillers ("a do canto inferior direito" -> "canto inferior direito")."""
    kept: list[str] = []
    i = 0
    while i < len(keys):
        n = fillers.prefix(keys, i)
        if n:
            i += n
        else:
            kept.append(keys[i])
            i += 1
    return tuple(kept)


def _items(keys: tuple[str, ...], words: _Words) -> list[tuple[str, int]]:
    """The utterance as row and column words and values, and ("other", i) for a word that is none of these."""
    items: list[tuple[str, int]] = []
    i = 0
    while i < len(keys):
        if keys[i].isdigit():
            items.append((_CARDINAL, int(keys[i])))
            i += 1
            continue
        if items and items[-1][0] == _ORDINAL and (n := words.after_ordinal.prefix(keys, i)):
            i += n  # "the fourth one"
            continue
        if (n := words.fillers.prefix(keys, i)) > 1:
            i += n  # "the one in the second row": a filler of several words before any number in it
            continue
        found = False
        if n := words.counting_phrases.prefix(keys, i):
            side = words.counting[keys[i : i + n]]
            if items and items[-1][0] == _ORDINAL:  # "the second from the right": counted on that axis
                value = items[-1][1]
                items[-1] = (_COLUMN if side < 2 else _ROW, value + FROM_END if side % 2 else value)
                items.append(("bound", 0))
            else:  # "the one from the bottom": the first from there
                items.append((_ORDINAL, 1 + FROM_END if side % 2 else 1))
            i += n
            continue
        for kind, phrases in (
            (_ROW, words.rows),
            (_COLUMN, words.columns),
            (_ORDINAL, words.ordinal_phrases),
            (_CARDINAL, words.cardinal_phrases),
        ):
            n = phrases.prefix(keys, i)
            if n:
                phrase = keys[i : i + n]
                value = words.ordinals.get(phrase, 0) if kind == _ORDINAL else words.cardinals.get(phrase, 0)
                items.append((kind, value))
                i += n
                found = True
                break
        if found:
            continue
        n = words.fillers.prefix(keys, i)
        if n:
            i += n
            continue
        items.append(("other", i))
        i += 1
    return items


def _lettered(keys: tuple[str, ...], words: _Words) -> Place | None:
    """ "b3", "bê três", "bi tre", "c four": a column's letter then a row's number, after lead-ins only."""
    end = len(keys)
    if keys and keys[-1].isdigit():
        number, n = int(keys[-1]), 1
    else:
        n = words.cardinal_phrases.suffix(keys, end)
        number = words.cardinals.get(keys[end - n : end], 0) if n else 0
    if not number:
        return None
    end -= n
    n = words.letter_phrases.suffix(keys, end)
    if not n:
        return None
    letter = words.letters[keys[end - n : end]]
    end -= n
    i = 0
    while i < end:
        step = words.fillers.prefix(keys[:end], i)
        if not step:
            return None
        i += step
    return Place(number, ord(letter) - ord("a") + 1)


def _marked(items: list[tuple[str, int]]) -> Place | None:
    """Row and column words, each with its value: a number after it ("row two") or an ordinal before it
    ("second row"); a value left over belongs to the axis not named ("second row, third")."""
    if any(kind == "other" for kind, _ in items) or any(
        value == 0 for kind, value in items if kind in (_ORDINAL, _CARDINAL)
    ):
        return None
    used = [False] * len(items)
    bound: dict[str, int] = {}
    for i, (kind, _) in enumerate(items):
        if kind == "bound":
            used[i] = used[i - 1] = True
            bound[items[i - 1][0]] = items[i - 1][1]
    for i, (kind, _) in enumerate(items):
        if kind not in (_ROW, _COLUMN) or used[i]:
            continue
        if kind in bound:
            return None  # "row two row three"
        used[i] = True
        if i + 1 < len(items) and items[i + 1][0] == _CARDINAL and not used[i + 1]:
            j = i + 1
        elif (
            i + 1 < len(items)
            and items[i + 1][0] == _ORDINAL
            and not used[i + 1]
            and (i == 0 or items[i - 1][0] != _ORDINAL or used[i - 1])
        ):
            j = i + 1  # "linha quarta" is rare, but "row, the fourth" is said
        elif i > 0 and items[i - 1][0] == _ORDINAL and not used[i - 1]:
            j = i - 1
        else:
            return None
        used[j] = True
        bound[kind] = items[j][1]
    left = [items[i] for i in range(len(items)) if not used[i]]
    if not bound or len(left) > 1 or (len(bound) == 2 and left):
        return None
    if left:
        other = _COLUMN if _ROW in bound else _ROW
        bound[other] = left[0][1]
    if len(bound) != 2:
        return None
    return Place(bound[_ROW], bound[_COLUMN])


def read_place(text: str, lang: Lang, *, letters: bool = True) -> Place | None:
    """`place_in` on a line of text."""
    return place_in(tokenize(text, vocabulary(lang).join_apostrophes), lang, letters=letters)
