"""Debian's Chromium (/usr/bin/chromium) under Playwright, as the browser tests and `make
screenshots` launch it: a fresh profile, no sandbox as root, none of the background network
it would otherwise keep trying."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("VYBE_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def missing() -> str | None:
    """Why the browser cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the browser tests need PyPI playwright (make test-ui installs it)"
    if not shutil.which(CHROMIUM):
        return f"the browser tests need {CHROMIUM} (make test-ui: apt-get install chromium)"
    return None


def _flags(extra: tuple[str, ...]) -> list[str]:
    return [*FLAGS, *extra, *(["--no-sandbox"] if os.geteuid() == 0 else [])]


@contextmanager
def chromium(profile: Path, *extra: str) -> Iterator[Any]:
    """A headless Chromium browser with its own user-data folder and ``extra`` flags."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=_flags(extra)
        )
        try:
            yield context
        finally:
            context.close()


@contextmanager
def launched(*extra: str) -> Iterator[Any]:
    """A headless Chromium browser with ``extra`` flags, for many tests: each
    ``new_context()`` in it starts as a fresh profile would, with no cookies or storage."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=_flags(extra)
        )
        try:
            yield browser
        finally:
            browser.close()
