"""Debian's chromium, headless, as every browser test launches it (Playwright's sync API)."""

from __future__ import annotations

import shutil

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launch(playwright):
    """A new headless chromium; the caller closes it."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
