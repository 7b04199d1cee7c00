"""PortAudio is shared by the microphone and the loudspeaker: one lock orders what touches its device list."""

from __future__ import annotations

import threading
from typing import Final

PORTAUDIO_LOCK: Final = threading.RLock()
"""Held while PortAudio's device list is rebuilt (which ends every open stream) and while the host's
voice plays, so a microphone search never cuts an announcement off."""
