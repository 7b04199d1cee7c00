"""How a table reaches the host: the modes of play, each an ears-and-mouth pair chosen once.

- `TextFrontend`: typed lines in, printed lines out (`--text`);
- `VoiceFrontend`: a microphone or a recording in, speech to the loudspeaker or a WAV file out.

Each mode opens what it needs (`open`), feeds the host until the game or the input ends (`run`),
and closes everything (`close`); the host, the rules and the understanding are the same in all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from voicehost.mouth import Mouth
from voicehost.referee.host import Host


class Frontend(Protocol):
    mouth: Mouth
    note: str  # said once at the start when the mode differs from what was asked (another engine)
    unheard: Callable[[Sequence[str]], Sequence[str]] | None  # the cards the ears cannot hear (HostSettings)

    def run(self, host: Host) -> None: ...

    def close(self) -> None: ...
