"""Debian's headless Chromium driven by selenium: the browser tests and `make screenshots` use this one setup.

Needs the `chromium` and `chromium-driver` Debian packages and the `selenium` package (the `dev` extra).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

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


@contextmanager
def chromium(*extra: str) -> Iterator[WebDriver]:
    """A headless Chromium with a fresh profile and `extra` flags, driven by selenium; closed on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="voicehost-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in (*FLAGS, *extra):
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
