"""How far a window stands above the room behind it (`voicehost.ears.loudness`)."""

from __future__ import annotations

import math

import numpy as np

from voicehost.ears.loudness import (
    MIN_BACKGROUND_WINDOWS,
    SMOOTHING_WINDOWS,
    SUSTAIN_WINDOWS,
    Background,
    level_db,
)
from voicehost.ears.vad import WINDOW


def _tone(rms: float, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(WINDOW) * rms).astype(np.float32)


def test_the_level_of_a_window_in_db() -> None:
    assert abs(level_db(np.full(WINDOW, 0.1, dtype=np.float32)) - (-20.0)) < 1e-6
    assert level_db(np.zeros(WINDOW, dtype=np.float32)) == -120.0


def test_nothing_is_gated_before_the_room_is_known() -> None:
    room = Background()
    assert all(math.isinf(room.above(_tone(0.01, i)).onset) for i in range(MIN_BACKGROUND_WINDOWS))
    assert not math.isinf(room.above(_tone(0.01, 99)).onset)


def test_a_voice_ten_db_over_a_steady_room_stands_ten_db_above_it() -> None:
    room = Background()
    for i in range(100):
        room.above(_tone(0.01, i))
    heard = [room.above(_tone(0.01 * 10**0.5, 1000 + i)) for i in range(SUSTAIN_WINDOWS)]
    assert 8.5 < heard[SMOOTHING_WINDOWS - 1].onset < 11.5  # the voice's own level once its first windows are in
    assert heard[0].onset < heard[-1].onset
    assert heard[SMOOTHING_WINDOWS - 1].sustained < heard[-1].sustained  # to go on: over more windows
    assert 8.5 < heard[-1].sustained < 11.5


def test_the_hosts_own_voice_is_not_learnt_as_the_room() -> None:
    """While the host talks its voice is in the room, but a player answering it must not have to rise above it."""
    room, learnt = Background(), Background()
    for i in range(100):
        room.above(_tone(0.001, i))
        learnt.above(_tone(0.001, i))
    for i in range(200):
        room.above(_tone(0.1, 200 + i), learn=False)
        learnt.above(_tone(0.1, 200 + i))
    for i in range(SMOOTHING_WINDOWS):
        player = _tone(0.02, 900 + i)
        over_room, over_learnt = room.above(player).onset, learnt.above(player).onset
    assert over_room > 20.0  # over the hiss
    assert over_learnt < 0.0  # it would be under a room that had learnt the host's voice
