"""Benchmarks of the voice host, printed as Markdown tables: `python -m bench` (see bench/README.md).

Recognition on a synthetic dev corpus (espeak-ng players, clean and in white noise), the latency from
the end of speech to the host's spoken verdict, and each engine's load time, speed and memory. Goals
are printed beside what was measured, never asserted: the command exits 0 unless something crashes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
"""The project's folder: boards live in tests/boards, models in models/."""
