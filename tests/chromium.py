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


LOCAL = ("file:", "data:", "blob:", "about:")  # requests that stay on this machine


def watch(tab, external: list, errors: list, page_errors: bool = True) -> None:
    """Collect what a test asserts is empty while `tab` runs: into `external` the requests that
    leave the machine, into `errors` the console's errors (and uncaught exceptions unless
    page_errors is False)."""
    tab.on("request", lambda r: external.append(r.url) if not r.url.startswith(LOCAL) else None)
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    if page_errors:
        tab.on("pageerror", lambda e: errors.append(str(e)))
