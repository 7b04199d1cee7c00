"""The echo gate judges a "stop" over the host's voice by seconds of echo heard, whatever the chunk size
(the microphone's 32 ms chunks, a satellite's 64 ms ones): with less than half a second of echo to go by,
a stop is not taken; with more, a stop clearly louder than the echo is, one as loud as it is not."""

from __future__ import annotations

import numpy as np
import pytest

from voicehost.audio.samples import SAMPLE_RATE
from voicehost.ears.heard import Heard
from voicehost.frontends.voice_loop import EchoGate


class Talking:
    speaking = True

    def stop(self) -> None:
        pass


def heard_over(echo_s: float, chunk: int, stop_level: float) -> bool:
    """Whether a stop said at `stop_level` after `echo_s` of echo at 0.01 is louder than the echo."""
    gate = EchoGate(Talking())
    rng = np.random.default_rng(0)
    echo = (rng.standard_normal(round(echo_s * SAMPLE_RATE)) * 0.01).astype(np.float32)
    stop = (rng.standard_normal(round(0.4 * SAMPLE_RATE)) * stop_level).astype(np.float32)
    stream = np.concatenate([echo, stop])
    for _ in gate.watch(stream[i : i + chunk] for i in range(0, len(stream), chunk)):
        pass
    return gate.louder_than_echo(Heard("stop", start_s=echo_s, end_s=echo_s + 0.4))


@pytest.mark.parametrize("chunk", [512, 1024, 1600])
def test_a_stop_is_judged_on_seconds_of_echo_whatever_the_chunks(chunk: int) -> None:
    assert not heard_over(0.3, chunk, 0.1)  # too little echo to know its level
    assert heard_over(2.0, chunk, 0.1)  # 20 dB over the echo
    assert not heard_over(2.0, chunk, 0.01)  # as loud as the echo: the echo itself
