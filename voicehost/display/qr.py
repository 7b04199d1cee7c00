"""QR codes as plain text for the host's console: two modules per character with half blocks.

Light modules are drawn (as `qrencode -t UTF8` does), so the code reads right on the usual light
text on a dark terminal, and phone scanners read the inverted code on a light one too.
"""

from __future__ import annotations

from typing import Final

import segno

QUIET_ZONE: Final = 2
_BLOCKS: Final = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


def qr_lines(text: str) -> list[str]:
    """The QR code of `text`, as lines of `▀▄█` and spaces (no colour codes)."""
    code = segno.make(text, error="m", micro=False)
    rows = [[not dark for dark in row] for row in code.matrix_iter(scale=1, border=QUIET_ZONE)]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    return [
        "".join(_BLOCKS[(top, bottom)] for top, bottom in zip(rows[i], rows[i + 1], strict=True))
        for i in range(0, len(rows), 2)
    ]
