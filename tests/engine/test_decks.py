"""The decks: big enough, no duplicates, and no card that is a part or a form of another."""

from __future__ import annotations

import pytest

from engine.decks import emoji_for, picture_names, pictures, words
from engine.lang import Lang, fold_text
from engine.legality import Verdict, check_clue


@pytest.mark.parametrize("lang", list(Lang))
def test_word_deck_is_large_and_clean(lang: Lang) -> None:
    deck = words(lang)
    assert len(deck) >= 400
    assert len({fold_text(word) for word in deck}) == len(deck)
    assert all(word == word.upper() and word.strip() == word for word in deck)
    clashes = []
    for word in deck:
        others = [other for other in deck if other != word]
        ruling = check_clue(word, others, lang)
        if ruling.card is not None and ruling.verdict is not Verdict.VALID:
            clashes.append((word, ruling.reason.value, ruling.card))
    assert clashes == []


def test_picture_deck_has_every_language() -> None:
    deck = pictures()
    assert len(deck) >= 150
    assert len({picture.emoji for picture in deck}) == len(deck)
    for lang in Lang:
        names = picture_names(lang)
        assert len({fold_text(name) for name in names}) == len(names)
        clashes = [(n, check_clue(n, [o for o in names if o != n], lang)) for n in names]
        assert [(n, r.card) for n, r in clashes if r.card is not None and r.verdict is not Verdict.VALID] == []
    first = deck[0]
    assert emoji_for(first.name(Lang.IT), Lang.IT) == first.emoji
    assert emoji_for("NOT A PICTURE", Lang.IT) is None


@pytest.mark.parametrize("lang", list(Lang))
def test_picture_aliases_are_unambiguous_and_most_pictures_have_two_names(lang: Lang) -> None:
    """A picture is called by other names too ("cão" or "cachorro"): no other name of one picture is the
    name or another name of a different picture, and at least 60 % of the pictures have two names or more."""
    owners: dict[str, set[str]] = {}
    for picture in pictures():
        for name in (picture.name(lang), *picture.aliases.get(lang.value, ())):
            assert name == name.upper() and name.strip() == name
            owners.setdefault(fold_text(name), set()).add(picture.id)
    assert {name: ids for name, ids in owners.items() if len(ids) > 1} == {}
    named_twice = sum(1 for picture in pictures() if picture.aliases.get(lang.value))
    assert named_twice >= 0.6 * len(pictures()), f"{named_twice} of {len(pictures())}"
