"""One package per page of the book: ``chapters/<page>/`` holds the page's figures and verdicts
(``figures``), checked claims (``claims``), exercise references (``exercises``), explorer
(``explorer``) and run panel (``panel``), each where the page has one; the package itself
re-exports what the page's cells call. The three collectives pages share ``chapters/collectives/``.
Models, fitting, kernels, topology, data and the registries stay shared in commbook."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil


def pages() -> list[str]:
    """The page packages, sorted."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if info.ispkg)


def modules(kind: str) -> dict:
    """{page package: its module `kind` ("claims", "exercises", "explorer", "panel")}, imported,
    for every page package that has one."""
    found = {}
    for page in pages():
        name = f"{__name__}.{page}.{kind}"
        if importlib.util.find_spec(name) is not None:
            found[page] = importlib.import_module(name)
    return found
