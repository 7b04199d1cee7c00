"""Which visible card an utterance names: fuzzy matching on spelling and on a rough pronunciation key.

Scores are rapidfuzz ratios (0..100) between what was heard and a card name, both lowercased and
without accents. For scale: one wrong letter in a six-letter name scores 83, in a four-letter name
75; one missing letter in six scores 91; a sounds-alike spelling ("sereja") scores 96.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final

from rapidfuzz import fuzz

from engine.decks import aliases_of
from engine.lang import Lang, fold_text
from voicehost.understanding.clues import spelled_word
from voicehost.understanding.commands import sounds_like_command
from voicehost.understanding.results import Action, Candidate
from voicehost.understanding.text import Token, keys_of, strip_start, tokenize
from voicehost.understanding.vocabulary import Vocabulary, vocabulary

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

MAX_MATCH_TOKENS: Final = 12
"""Utterances with more words than this (after fillers) are not matched against cards."""


@lru_cache(maxsize=8192)
def sound_of(text: str, lang: Lang) -> str:
    """A rough pronunciation key: recognizers write what they hear ("sereja")."""
    for pattern, replacement in vocabulary(lang).phonetic:
        text = pattern.sub(replacement, text)
    return fold_text(text)


@dataclass(frozen=True)
class _CardForm:
    """A card name in the forms it is compared in."""

    name: str
    spaced: str  # "arco iris"
    joined: str  # "arcoiris"
    sound: str
    words: int
    alias: bool = False  # another name of the card: it counts only when heard nearly as written


@lru_cache(maxsize=4096)
def _card_form(name: str, lang: Lang) -> _CardForm | None:
    tokens = tokenize(name, vocabulary(lang).join_apostrophes)
    if not tokens:
        return None
    keys = keys_of(tokens)
    sound = "".join(sound_of(t.text, lang) for t in tokens)
    return _CardForm(name, " ".join(keys), "".join(keys), sound, len(keys))


@dataclass(frozen=True)
class Scored:
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


def _views(tokens: Sequence[Token], vocab: Vocabulary, max_words: int) -> list[_View]:
    """Every run of words that could be the card, and how much of the utterance it leaves."""
    n = len(tokens)
    bounds = strip_start(tokens, vocab.starters, keep_one=True)
    core = bounds[-1]
    keys = keys_of(tokens)
    sounds = [sound_of(t.text, vocab.lang) for t in tokens]
    views: list[_View] = []
    for i in range(n):
        for j in range(i + 1, min(n, i + max_words) + 1):
            full = j == n and i in bounds
            leftover = 0 if full else max(1, (n - core) - max(0, j - max(i, core)))
            window = keys[i:j]
            views.append(_View(" ".join(window), "".join(window), "".join(sounds[i:j]), full, leftover))
    spelled = spelled_word(tokens, vocab)
    if spelled is not None:
        views.append(_View(spelled, spelled, sound_of(spelled, vocab.lang), True, 0))
    return views


def named_inside(text: str, cards: Sequence[str], lang: Lang) -> bool:
    """Whether some run of the words is one of `cards` as written, or nearly (ACCEPT_SCORE), whatever else the
    line says ("não concordo com a estrela, é óbvio demais" names ESTRELA): talk about a card, not a lone move."""
    vocab = vocabulary(lang)
    tokens = tokenize(text, vocab.join_apostrophes)
    forms = [form for form in (_card_form(card, lang) for card in cards) if form is not None]
    if not forms or not tokens:
        return False
    views = _views(tokens, vocab, max(form.words for form in forms))
    return any(fuzz.ratio(view.spaced, form.spaced) >= ACCEPT_SCORE for form in forms for view in views)


def rank(tokens: Sequence[Token], cards: Sequence[str], vocab: Vocabulary) -> list[Scored]:
    """All visible cards scored against the utterance, best first."""
    forms: list[_CardForm] = []
    seen: set[str] = set()
    names = frozenset(cards)
    for card in cards:
        if card in seen:
            continue
        seen.add(card)
        others = [alias for alias in aliases_of(card, vocab.lang) if alias not in names]  # a card's own name wins
        for name in (card, *others):  # a picture is also heard by its other names
            form = _card_form(name, vocab.lang)
            if form is not None:
                forms.append(replace(form, name=card, alias=name != card))
    if not forms or not tokens or len(tokens) > MAX_MATCH_TOKENS:
        return []
    views = _views(tokens, vocab, max(f.words for f in forms) + 1)
    bests: dict[str, Scored] = {}
    for form in forms:
        best = bests.get(form.name, Scored(form.name, 0.0, False, False))
        for view in views:
            plain = max(fuzz.ratio(view.spaced, form.spaced), fuzz.ratio(view.joined, form.joined))
            sound = fuzz.ratio(view.sound, form.sound) - PHONETIC_PENALTY
            score = max(plain, sound)
            if not view.full:
                score -= LEFTOVER_PENALTY * view.leftover
            exact = view.full and plain == 100.0
            if form.alias and score < ACCEPT_SCORE:
                continue  # a vague likeness to another name is no evidence: the names are many
            if (score, exact, view.full) > (best.score, best.exact, best.full):
                best = Scored(form.name, max(0.0, score), view.full, exact)
        bests[form.name] = best
    ranked = list(bests.values())
    ranked.sort(key=lambda s: s.score, reverse=True)  # stable: board order breaks ties
    return ranked


def guess_action(ranked: Sequence[Scored], tokens: Sequence[Token], vocab: Vocabulary) -> Action:
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
        and not sounds_like_command(tokens, vocab)
    ):
        return Action.ACCEPT
    return Action.CONFIRM


def candidates_of(ranked: Sequence[Scored]) -> tuple[Candidate, ...]:
    if not ranked or ranked[0].score < CONFIRM_SCORE:
        return ()
    floor = max(CONFIRM_SCORE, ranked[0].score - CANDIDATE_SPREAD)
    return tuple(Candidate(s.card, round(min(100.0, s.score), 1)) for s in ranked if s.score >= floor)[:MAX_CANDIDATES]
