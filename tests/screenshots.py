"""Screenshots of the pages as a table sees them: `python -m tests.screenshots OUTDIR` (`make screenshots`).

The TV at 1920x1080 mid-game (each edition) and at the end (the whole key turned over), the board
on a phone in the dark, the spymasters' key page on a phone (the key grid first), and listen mode on
a phone after the assassin was asked for (nothing of the key on screen). Needs Debian's chromium and
chromium-driver and the `selenium` package (the `dev` extra).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from engine.editions import AnyGame
from engine.lang import Lang
from engine.pieces import Edition
from voicehost.display.web import WebDisplay
from voicehost.prompts import Prompts

from .display_demo import finished, mid_game
from .headless import CHROMEDRIVER, CHROMIUM, chromium, emulate, wait_for

TV: Final = (1920, 1080)
PHONE: Final = (412, 915)


@dataclass(frozen=True)
class Shot:
    name: str
    edition: Edition
    lang: Lang
    size: tuple[int, int]
    scheme: str = "light"
    page: str = "board"  # or a key holder: spymasters, a, b
    over: bool = False
    then: Callable[[Any], None] | None = None
    """What to do on the page before the picture (press buttons)."""


def ask_for_the_assassin(driver: Any) -> None:
    """Listen mode on, the red team chosen, the assassin asked for: the page has just said where it is."""
    driver.execute_script("speechSynthesis.speak = () => {}; speechSynthesis.cancel = () => {};")
    driver.find_element("id", "listen-toggle").click()
    driver.find_element("css selector", "button[data-choose-team='red']").click()
    driver.find_element("css selector", "button[data-question='assassin']").click()
    wait_for(driver, "document.getElementById('answer').textContent !== ''")


SHOTS: Final = (
    Shot("tv-classic", Edition.CLASSIC, Lang.EN, TV),
    Shot("tv-pictures", Edition.PICTURES, Lang.IT, TV),
    Shot("tv-duet", Edition.DUET, Lang.PT_BR, TV),
    Shot("tv-game-over", Edition.CLASSIC, Lang.EN, TV, over=True),
    Shot("tv-duet-game-over", Edition.DUET, Lang.EN, TV, over=True),
    Shot("phone-board-dark", Edition.CLASSIC, Lang.PT_BR, PHONE, "dark"),
    Shot("phone-key", Edition.CLASSIC, Lang.EN, PHONE, page="spymasters"),
    Shot("phone-listen-mode", Edition.CLASSIC, Lang.EN, PHONE, page="spymasters", then=ask_for_the_assassin),
)


def take(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with chromium() as driver:
        for shot in SHOTS:
            game: AnyGame
            game, said = (finished if shot.over else mid_game)(shot.edition, shot.lang)
            display = WebDisplay(game, Prompts.load(shot.lang), port=0)
            try:
                display.said(said)
                if not shot.over:
                    display.timer(42, True)
                emulate(driver, *shot.size, shot.scheme)
                driver.get(display.url if shot.page == "board" else display.key_url(shot.page))
                driver.execute_script("sessionStorage.clear()")
                wait_for(driver, f"document.querySelectorAll('#board li').length === {len(game.board.cards)}")
                wait_for(driver, "document.body.dataset.connected === 'true' && document.fonts.status === 'loaded'")
                if shot.then is not None:
                    shot.then(driver)
                path = out / f"{shot.name}.png"
                driver.save_screenshot(str(path))
                written.append(path)
            finally:
                display.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.screenshots", description=__doc__)
    parser.add_argument("outdir", type=Path)
    args = parser.parse_args(argv)
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        print("needs chromium and chromium-driver: apt-get install chromium chromium-driver", file=sys.stderr)
        return 1
    for path in take(args.outdir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
