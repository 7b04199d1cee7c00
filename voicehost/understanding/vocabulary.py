"""What the host listens for, per language: the vocabulary files (`voicehost/vocab/*.toml`) as one object.

`Vocabulary.from_dict` checks a table and normalizes it the way utterances are normalized;
`vocabulary(lang)` loads a language's file once, applying `inherits` (pt-PT builds on pt-BR) and
`forget`. Every word the host listens for lives in those files, not in the code.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from engine.lang import Lang, fold_text
from engine.pieces import Side
from voicehost.understanding.results import READ_ONLY, Command, Phase
from voicehost.understanding.text import Phrases, keys_of, tokenize

_VOCAB_PACKAGE: Final = "voicehost.vocab"
_PhraseMap = Mapping[tuple[str, ...], Command]


@dataclass(frozen=True)
class Vocabulary:
    """One language's listening vocabulary, normalized once for matching."""

    lang: Lang
    join_apostrophes: bool
    numbers: Mapping[tuple[str, ...], int]
    number_words: Phrases
    unlimited: Phrases
    connectors: Phrases
    trailers: Phrases
    hesitations: Phrases
    fillers: Phrases
    starters: Phrases  # stripped before a guess: fillers, lead-ins, articles, yes-words
    before_name: Phrases  # said before the host's name: fillers and articles ("okay, o apresentador, ...")
    clue_starters: Phrases  # the same plus no-words ("não, tomate três")
    corrections: Phrases  # no-words and "I mean": what follows them replaces what came before
    wordy_starters: Phrases  # starters with a real word in them, safe before spelling
    letters: Mapping[tuple[str, ...], str]
    letter_names: Phrases
    commands: _PhraseMap
    phase_commands: Mapping[Phase, _PhraseMap]
    command_texts: tuple[str, ...]
    phonetic: tuple[tuple[re.Pattern[str], str], ...]
    host_names: Phrases  # said first, the utterance is said to the host ("Anfitrião, cereja")
    commit_phrases: Phrases  # said after a move, it is said to the host ("cereja, resposta final")
    talk_marks: Phrases  # said with a card or a clue, it is table talk, no move ("não é o touro")
    scored_words: Mapping[Command, str]  # a command's one word Whisper scores beside the cards, as written
    scored_commands: Mapping[str, Command]  # read-only commands' and a pass's phrases scored while guessing
    sides: Mapping[str, Side]  # Duet: a side's spoken names, folded ("be" for "bê")
    side_leads: frozenset[str]  # words said before a side's name ("fui eu, o ...")
    function_words: frozenset[str]  # never a clue's word: prepositions, pronouns, auxiliaries ("em", "bem")

    @property
    def scored_phrases(self) -> frozenset[str]:
        """The phrases scored beside the cards that are no card: "yes", "no", "pass" and the read-only commands."""
        return frozenset((*self.scored_words.values(), *self.scored_commands))

    def scored_command(self, phrase: str) -> Command | None:
        """The command a phrase scored beside the cards stands for ("passo", "qual é o placar"); None for a card."""
        found = self.scored_commands.get(phrase)
        return found or next((command for command, word in self.scored_words.items() if word == phrase), None)

    @classmethod
    def from_dict(cls, lang: Lang, table: Mapping[str, Any]) -> Vocabulary:
        """Check a vocabulary table (as its file holds it, inheritance resolved) and normalize it."""
        return _build(lang, table)

    @classmethod
    def load(cls, lang: Lang) -> Vocabulary:
        """The language's vocabulary file, read afresh (`vocabulary` keeps one per language)."""
        return _build(lang, resolved_table(lang.value))


def _read_table(name: str) -> dict[str, Any]:
    resource = resources.files(_VOCAB_PACKAGE).joinpath(f"{name}.toml")
    return tomllib.loads(resource.read_text(encoding="utf-8"))


def _phrase_key(phrase: str, join_apostrophes: bool) -> tuple[str, ...]:
    return keys_of(tokenize(phrase, join_apostrophes))


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


def resolved_table(name: str, chain: tuple[str, ...] = ()) -> dict[str, Any]:
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
    base = resolved_table(parent, (*chain, name))
    join = table.get("apostrophe", base.get("apostrophe")) == "join"
    drop = frozenset(_phrase_key(p, join) for p in forget)
    result: dict[str, Any] = _merged(_without(base, drop, join), table)
    return result


def _is_str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def strings(table: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not _is_str_list(value):
        raise ValueError(f"{where}: {key!r} must be a list of strings")
    return [str(v) for v in value]


def subtable(table: Mapping[str, Any], key: str, where: str) -> dict[str, Any]:
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


def _build(lang: Lang, table: Mapping[str, Any]) -> Vocabulary:
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
        return [key_of(p) for p in strings(table, name, where)]

    numbers: dict[tuple[str, ...], int] = {}
    for word, value in subtable(table, "numbers", where).items():
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 20:
            raise ValueError(f"{where}: number {word!r} must be an integer 0..20")
        numbers[key_of(word)] = value
    missing_numbers = set(range(21)) - set(numbers.values())
    if missing_numbers:
        raise ValueError(f"{where}: no words for numbers {sorted(missing_numbers)}")

    letters: dict[tuple[str, ...], str] = {}
    for name, letter in subtable(table, "letters", where).items():
        if not isinstance(letter, str) or len(letter) != 1 or not letter.isalpha():
            raise ValueError(f"{where}: letter name {name!r} must map to one letter")
        letters[key_of(name)] = letter.lower()

    commands = _command_map(subtable(table, "commands", where), where, key_of)
    phase_commands: dict[Phase, _PhraseMap] = {}
    for phase_name, raw in subtable(table, "phase_commands", where).items():
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
    return Vocabulary(
        lang=lang,
        join_apostrophes=join,
        numbers=numbers,
        number_words=Phrases(numbers),
        unlimited=Phrases(phrases("unlimited")),
        connectors=Phrases(phrases("number_connectors")),
        trailers=Phrases(phrases("clue_trailers")),
        hesitations=Phrases(phrases("hesitations")),
        fillers=Phrases(fillers),
        before_name=Phrases([*fillers, *phrases("articles")]),
        starters=Phrases(starters),
        clue_starters=Phrases([*starters, *no]),
        corrections=Phrases([*no, *phrases("corrections")]),
        wordy_starters=Phrases(p for p in starters if any(len(w) > 1 for w in p)),
        letters=letters,
        letter_names=Phrases(letters),
        commands=commands,
        phase_commands=phase_commands,
        command_texts=tuple(sorted({" ".join(k) for mapping in every for k in mapping})),
        phonetic=tuple(rules),
        host_names=Phrases(phrases("host_names")),
        commit_phrases=Phrases(phrases("commit_phrases")),
        talk_marks=Phrases(phrases("talk_marks")),
        scored_words=_scored_words(table, where),
        scored_commands=_scored_commands(table, where),
        sides=_sides(table, where),
        side_leads=frozenset(fold_text(word) for word in strings(table, "side_leads", where)),
        function_words=_single_words(phrases("function_words"), "function_words", where),
    )


def _single_words(listed: list[tuple[str, ...]], name: str, where: str) -> frozenset[str]:
    """A list of words, one word each, as compared."""
    if any(len(key) != 1 for key in listed):
        raise ValueError(f"{where}: {name!r} lists single words")
    return frozenset(key[0] for key in listed)


def _scored_words(table: Mapping[str, Any], where: str) -> dict[Command, str]:
    words: dict[Command, str] = {}
    for name, word in subtable(table, "scored_words", where).items():
        if name not in Command.__members__ or not isinstance(word, str) or len(word.split()) != 1:
            raise ValueError(f"{where}: [scored_words] maps a command to one word, not {name} = {word!r}")
        words[Command[name]] = word
    missing = {Command.YES, Command.NO, Command.PASS} - set(words)
    if missing:
        raise ValueError(f"{where}: [scored_words] has no word for {', '.join(sorted(c.name for c in missing))}")
    return words


def _scored_commands(table: Mapping[str, Any], where: str) -> dict[str, Command]:
    """The phrases the help teaches for the read-only commands, and a pass's commonest few words ("we're
    done"), each scored as a transcript beside the cards while guessing ("Pua no placar." is "qual é o
    placar"). A pass's phrases add up with its word and are weighed from the pass's own points; no other
    command that changes the game is acted on from these scores, so none other is listed."""
    phrases: dict[str, Command] = {}
    for phrase, name in subtable(table, "scored_commands", where).items():
        command = Command.__members__.get(name) if isinstance(name, str) else None
        if command is None or (command not in READ_ONLY and command is not Command.PASS):
            raise ValueError(
                f"{where}: [scored_commands] maps a phrase to a read-only command or PASS, not {phrase} = {name!r}"
            )
        phrases[phrase] = command
    return phrases


def _sides(table: Mapping[str, Any], where: str) -> dict[str, Side]:
    names: dict[str, Side] = {}
    for side in Side:
        for name in strings(table, f"side_{side.value}", where):
            key = fold_text(name)
            if names.get(key, side) is not side:
                raise ValueError(f"{where}: {name!r} names both sides")
            names[key] = side
    return names


@cache
def vocabulary(lang: Lang) -> Vocabulary:
    """Loaded on first use, once per language: the data files are the only I/O here."""
    return Vocabulary.load(lang)


# ---- the phrases as written, for recognizers (a vosk grammar needs "não", not "nao") ----


@cache
def listening_phrases(lang: Lang) -> tuple[str, ...]:
    """Every command and yes/no phrase as written, accents kept, and the host's names and the commit
    phrases (a move said to the host): a vosk grammar needs the words the model knows, and "não" is not
    "nao" to it."""
    table = resolved_table(lang.value)
    tables = [subtable(table, "commands", lang.value), *subtable(table, "phase_commands", lang.value).values()]
    phrases = [phrase.lower() for mapping in tables for listed in mapping.values() for phrase in listed]
    addressing = [p.lower() for key in ("host_names", "commit_phrases") for p in strings(table, key, lang.value)]
    return tuple(dict.fromkeys((*phrases, *addressing)))


@cache
def guess_phrases(lang: Lang) -> tuple[str, ...]:
    """What a player may say while guessing besides a card, as written: every command and yes/no
    phrase, the lead-ins and articles said before a card ("eu acho que é o ..."), and the words that
    make talk of a card ("não é o ..."). A closed grammar needs them, or their words go to the nearest
    card or filler, and discussion becomes moves."""
    table = resolved_table(lang.value)
    keys = ("lead_ins", "articles", "talk_marks")
    around = [p.lower() for key in keys for p in strings(table, key, lang.value)]
    return tuple(dict.fromkeys((*listening_phrases(lang), *around)))


@cache
def command_phrases(lang: Lang, command: Command) -> tuple[str, ...]:
    """Every phrase of one command as written (accents kept): a recognizer may score them as candidates."""
    table = resolved_table(lang.value)
    tables = [subtable(table, "commands", lang.value), *subtable(table, "phase_commands", lang.value).values()]
    phrases = [phrase for mapping in tables for phrase in mapping.get(command.name, ())]
    return tuple(dict.fromkeys(phrases))


ENDINGS: Final = (Command.NEW_GAME, Command.QUIT)
"""What makes sense once a game is over."""


@cache
def ending_phrases(lang: Lang) -> tuple[str, ...]:
    """Every way of saying "new game" and "quit", as written: a recognizer scores them once a game is over."""
    return tuple(dict.fromkeys(phrase for command in ENDINGS for phrase in command_phrases(lang, command)))


def ending_of(lang: Lang, phrase: str) -> Command:
    """The command one of `ending_phrases` says."""
    return next(command for command in ENDINGS if phrase in command_phrases(lang, command))


@cache
def spoken_numbers(lang: Lang, *, up_to: int = 9) -> tuple[tuple[str, int | None], ...]:
    """Each way the language says a clue's number up to ``up_to``, as written (accents kept), and
    its value (None: unlimited): a recognizer can score them as the closed set a clue ends with."""
    table = resolved_table(lang.value)
    where = f"vocab/{lang.value}"
    numbers = [(str(word), int(value)) for word, value in subtable(table, "numbers", where).items()]
    spoken: list[tuple[str, int | None]] = [(word, value) for word, value in numbers if value <= up_to]
    spoken += [(phrase, None) for phrase in strings(table, "unlimited", where)]
    return tuple(spoken)
