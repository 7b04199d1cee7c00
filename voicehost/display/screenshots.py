"""Screenshots of the public board, mid-game, for each edition: `python -m voicehost.display.screenshots OUTDIR`.

Needs Debian's chromium and chromium-driver and the `selenium` package (the `dev` extra). The same
headless browser setup serves the browser tests (`chromium`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

from engine.lang import Lang
from engine.pieces import Edition
from voicehost.display.demo import mid_game
from voicehost.display.web import WebDisplay
from voicehost.prompts import Prompts

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM: Final = Path("/usr/bin/chromium")
CHROMEDRIVER: Final = Path("/usr/bin/chromedriver")
FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)
SHOTS: Final = (
    # name, edition, language, width, height, colour scheme
    ("classic", Edition.CLASSIC, Lang.EN, 1600, 900, "light"),
    ("pictures", Edition.PICTURES, Lang.EN, 1600, 900, "light"),
    ("duet", Edition.DUET, Lang.EN, 1600, 900, "light"),
    ("classic-phone-dark", Edition.CLASSIC, Lang.PT_BR, 412, 915, "dark"),
    ("duet-key-phone", Edition.DUET, Lang.IT, 412, 915, "light"),
)


@contextmanager
def chromium() -> Iterator[WebDriver]:
    """A headless Chromium with a fresh profile, driven by selenium; closed on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="voicehost-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def emulate(driver: WebDriver, width: int, height: int, scheme: str = "light") -> None:
    """Set the viewport and the colour scheme the page sees (as a phone, a laptop or a TV would).

    Motion is reduced, so a change of scheme shows at once (no colour caught mid-transition).
    """
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < height},
    )
    features = [
        {"name": "prefers-color-scheme", "value": scheme},
        {"name": "prefers-reduced-motion", "value": "reduce"},
    ]
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": features})


def wait_for(driver: WebDriver, script: str, timeout: float = 5.0) -> object:
    """Poll a JavaScript expression until it is truthy; its value, or TimeoutError."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(f"return {script};")
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page never satisfied: {script}")
        time.sleep(0.02)


def take(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with chromium() as driver:
        for name, edition, lang, width, height, scheme in SHOTS:
            game, said = mid_game(edition, lang)
            display = WebDisplay(game, Prompts.load(lang), port=0)
            try:
                display.said(said)
                display.timer(42, True)
                emulate(driver, width, height, scheme)
                driver.get(display.key_url("a") if "key" in name else display.url)
                wait_for(driver, f"document.querySelectorAll('#board li').length === {len(game.board.cards)}")
                wait_for(driver, "document.fonts.status === 'loaded'")
                path = out / f"{name}.png"
                driver.save_screenshot(str(path))
                written.append(path)
            finally:
                display.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m voicehost.display.screenshots", description=__doc__)
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
