"""Whether an utterance is said to the host, or is table talk: the form of it, before what it names.

At a real table operatives argue aloud before they guess ("será que é o figo? não, acho que não é o
touro"). The host cannot tell voices apart; it judges by what was said. Said to the host: its name
first ("Anfitrião, cereja", "Host, cherry") or a commit phrase after the move ("cereja, resposta
final"). Talk: a negation, a question or a hedge around what is said ("não é o touro", "is it the
piano?", "maybe the sponge, or"), or more words than a move has. Every word of it is in the
vocabulary files (`host_names`, `commit_phrases`, `talk_marks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from rapidfuzz.distance import Levenshtein

from engine.lang import Lang
from voicehost.understanding.commands import trim
from voicehost.understanding.positions import place_in
from voicehost.understanding.text import Phrases, keys_of, strip_start, text_of, tokenize
from voicehost.understanding.vocabulary import vocabulary

MAX_NAME_WORDS: Final = 2
"""A move names a card (at most two words: "ICE CREAM", "MÁQUINA FOTOGRÁFICA") or a clue's word (one,
then a number), or is a command (any of the vocabulary's phrases, whatever its length). Once the host's
name and the words of lead-ins, articles and politeness are set aside, more words than this is talk."""


@dataclass(frozen=True)
class Form:
    """How an utterance is said: to the host or not, as talk or as a move, and what remains of it once
    the host's name and a commit phrase are taken off."""

    text: str  # what the move is, the host's name and the commit phrase taken off
    addressed: bool
    talk: bool


def form_of(text: str, lang: Lang, host_names: Sequence[str] = (), *, clue_shapes: bool = True) -> Form:
    """The form of one utterance (see the module docstring); `host_names`: names the players gave the
    host, besides the vocabulary's; `clue_shapes`: a word or two and a number are a clue, never talk (False
    where no clue can be given, so the number counts as a word). Never raises."""
    vocab = vocabulary(lang)
    names = _names(lang, tuple(host_names))
    tokens = tuple(tokenize(text, vocab.join_apostrophes))
    keys = keys_of(tokens)
    addressed = False
    for start in strip_start(tokens, vocab.before_name, keep_one=True):  # "hey, okay host", "o apresentador"
        name = max(vocab.host_names.prefix(keys, start), names.prefix(keys, start))
        if name and start + name < len(keys):
            addressed, tokens = True, tokens[start + name :]
            break
    keys = keys_of(tokens)
    end = len(keys)
    while (polite := vocab.fillers.suffix(keys, end)) and polite < end:  # "..., final answer, please"
        end -= polite
    committed = vocab.commit_phrases.suffix(keys, end)
    if committed and committed < end:
        addressed, tokens = True, tokens[: end - committed]
    said = text_of(tokens)  # the move as said, every word of it: what it means is understood later
    tokens = trim(tokens, vocab)
    keys = keys_of(tokens)
    core = keys[strip_start(tokens, vocab.clue_starters, keep_one=True)[-1] :]
    core = core[: len(core) - vocab.trailers.suffix(core, len(core))]  # "..., tre carte"
    number = _number_tail(core, lang)
    counted = core[: len(core) - number] if clue_shapes else core  # where no clue can be given, a number is a word
    named = tuple(key for key in counted if key not in _starter_words(lang))
    clue_shaped = clue_shapes and number > 0 and 0 < len(named) <= MAX_NAME_WORDS  # "perigo, dois": a clue
    marked = any(0 < vocab.talk_marks.prefix(keys, i) < len(keys) for i in range(len(keys)))  # "não" alone: an answer
    command = core in _command_phrases(lang) or keys in _command_phrases(lang) or place_in(tokens, lang) is not None
    talk = not command and not clue_shaped and (marked or "?" in text or len(named) > MAX_NAME_WORDS)
    return Form(said if addressed else text, addressed, talk)


MIN_SLIPPED_NAME_LETTERS: Final = 4
"""A one-word host's name of this many letters or more is still the name one letter away ("post" for
"host"); a shorter one is too like other words."""
NAME_SLIP_EDITS: Final = 1
"""How many letter edits from the host's name a first word may be and still be taken for the name."""


def name_slip(text: str, lang: Lang, host_names: Sequence[str] = ()) -> int:
    """How many first words are the host's name one letter away ("Post pass", "Oost necklace": Whisper
    writing an English "host"), with a move to follow: 1, or 0 when the first word is no such slip. Weaker
    than the name itself: what follows is asked back, never acted on at once (`referee.take_up`)."""
    vocab = vocabulary(lang)
    keys = keys_of(tokenize(text, vocab.join_apostrophes))
    if len(keys) < 2:
        return 0
    phrases = _every_name(lang, tuple(host_names))
    names = {phrase[0] for phrase in phrases if len(phrase) == 1 and len(phrase[0]) >= MIN_SLIPPED_NAME_LETTERS}
    slipped = (Levenshtein.distance(keys[0], name, score_cutoff=NAME_SLIP_EDITS) for name in names)
    return 1 if any(0 < edits <= NAME_SLIP_EDITS for edits in slipped) else 0


def is_host_name(text: str, lang: Lang, host_names: Sequence[str] = ()) -> bool:
    """Whether the words are the host's name, one of the language's or one the table gave it: what a
    player says to address the host, never a move's word ("Conduttore CTA2" is no clue "conduttore")."""
    keys = keys_of(tokenize(text, vocabulary(lang).join_apostrophes))
    return bool(keys) and keys in _every_name(lang, tuple(host_names))


@cache
def _every_name(lang: Lang, host_names: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    """Every name of the host as words: the language's, and those the table gave it."""
    return frozenset((*vocabulary(lang).host_names.phrases(), *_names(lang, host_names).phrases()))


@cache
def _names(lang: Lang, host_names: tuple[str, ...]) -> Phrases:
    vocab = vocabulary(lang)
    return Phrases(keys_of(tokenize(name, vocab.join_apostrophes)) for name in host_names)


@cache
def _command_phrases(lang: Lang) -> frozenset[tuple[str, ...]]:
    vocab = vocabulary(lang)
    return frozenset(key for mapping in (vocab.commands, *vocab.phase_commands.values()) for key in mapping)


@cache
def spoken_host_name(lang: Lang) -> str:
    """The host's first name in the vocabulary, as written: what the host tells players to call it. Read
    once per language: the host asks it for every moment and view, and reading the vocabulary file afresh
    (pt-PT's resolved from pt-BR's) cost 100 ms an utterance in pt-PT, on the way to the answer."""
    from voicehost.understanding.vocabulary import resolved_table

    names = resolved_table(lang.value).get("host_names") or ["host"]
    return str(names[0])


@cache
def _starter_words(lang: Lang) -> frozenset[str]:
    """Every word of the lead-ins, articles, fillers and yes- and no-words: they name nothing."""
    return frozenset(word for phrase in vocabulary(lang).clue_starters.phrases() for word in phrase)


def content_words(text: str, lang: Lang) -> tuple[str, ...]:
    """The words of an utterance that could name something: hesitations, politeness, lead-ins, articles,
    yes- and no-words set aside ("hmm", "okay", "yes, the" name nothing)."""
    vocab = vocabulary(lang)
    keys = keys_of(trim(tokenize(text, vocab.join_apostrophes), vocab))
    dropped = vocab.hesitations.phrases() | vocab.fillers.phrases()
    return tuple(key for key in keys if (key,) not in dropped and key not in _starter_words(lang))


def names_a_clue(text: str, lang: Lang) -> bool:
    """Whether the words said for a clue's word could be one: a content word that is no function word
    (`Vocabulary.function_words`). "bem", "até em" are heard in talk far more than any spymaster gives them;
    a letter may be a clue ("x: 1" for RAIO), and is one here."""
    function_words = vocabulary(lang).function_words
    return any(word not in function_words for word in content_words(text, lang))


def _number_tail(keys: tuple[str, ...], lang: Lang) -> int:
    """How many of the last words say a clue's number ("dois", "2", "senza limiti"); 0 when none do."""
    vocab = vocabulary(lang)
    if keys and keys[-1].isdigit():
        return 1
    return max(vocab.number_words.suffix(keys, len(keys)), vocab.unlimited.suffix(keys, len(keys)))
