"""Whisper repeats itself on a short window, and not always exactly (`collapse_repeats`): the echo is
dropped, what was said is kept."""

from __future__ import annotations

import pytest

from voicehost.ears.recognizers.whisper import collapse_repeats


@pytest.mark.parametrize(
    ("heard", "kept"),
    [
        ("reindeer reindeer reindeer", "reindeer"),
        ("Passo Passso", "Passo"),  # a letter more
        ("Conduttore elicottero Conduttone el", "Conduttore elicottero"),  # a slip, then cut short
        ("conduttore conduttores cond", "conduttore"),
        ("Post-sponge. Post-sp", "Post-sponge."),
    ],
)
def test_an_echo_is_dropped(heard: str, kept: str) -> None:
    assert collapse_repeats(heard) == kept


@pytest.mark.parametrize(
    "heard", ["tomate tomate 3", "sim sin", "lua, luva", "the ship is ship", "no, nope", "cão cama", "música 2"]
)
def test_what_only_looks_like_an_echo_is_kept(heard: str) -> None:
    assert collapse_repeats(heard).split()[-1] == heard.split()[-1]
