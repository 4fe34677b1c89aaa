"""Checked claims: numbers the book states about its shipped data, models and code.

A claim is a function computing one number (or a word) from the source it is about, registered
with :func:`claim` in ``commbook/chapters/<page>/claims.py``::

    @claim("pp-ucx-node-latency", page="pingpong", unit="us",
           source="data/orfeo/pingpong_seed.csv (Scorcia report, sec. 2)")
    def _():
        return seed_value(...)

A page states it with the role ``{claim}`0.99 µs <pp-ucx-node-latency>` `` (the reader sees
"0.99 µs"); :mod:`commbook.claims.check` reads every such role in ``book/*.md``, parses the stated
number with its unit and compares it with the function's value (tests/test_claims.py).

A claim quoting an exercise's reference is registered with :func:`reference_claim` instead.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable

from .quantity import UNITS


@dataclass(frozen=True)
class Claim:
    """A number the book states: `function` computes it from `source`; `pages` may state it in `unit`,
    within half a unit of the stated last digit or `rel_tol` of the value, whichever is wider."""

    name: str
    pages: tuple[str, ...]
    unit: str
    source: str
    rel_tol: float | None
    function: Callable[[], float | str] = field(compare=False, repr=False)

    def value(self) -> float | str:
        return self.function()


REGISTRY: dict[str, Claim] = {}


def claim(name: str, page: str | tuple[str, ...], unit: str = "", rel_tol: float | None = None, source: str = ""):
    """Register the decorated function as the claim `name`, stated on `page` (or pages) in
    `unit` (a key of :data:`commbook.claims.quantity.UNITS`; "" for a plain count)."""
    pages = (page,) if isinstance(page, str) else tuple(page)
    if unit not in UNITS:
        raise ValueError(f"claim {name!r}: unknown unit {unit!r}; known: {sorted(UNITS)}")
    if not source:
        raise ValueError(f"claim {name!r}: say where the number comes from (source=...)")

    def register(function):
        if name in REGISTRY and REGISTRY[name].function.__module__ != function.__module__:
            raise ValueError(
                f"claim {name!r} registered twice ({REGISTRY[name].function.__module__}, {function.__module__})"
            )
        REGISTRY[name] = Claim(name, pages, unit, source, rel_tol, function)
        return function

    return register


def reference_claim(
    name: str, page: str, unit: str, exercise: str, per: float = 1.0, rel_tol: float | None = None, source: str = ""
):
    """Register the claim `name`: the reference value of the exercise `exercise` (commbook.exercises)
    divided by `per` (1e3 for a µs reference stated in ms)."""
    from .sources import reference

    function = lambda: reference(exercise) / per
    # the calling page module (as namedtuple sets it), for the registered-twice check
    function.__module__ = sys._getframe(1).f_globals["__name__"]
    claim(name, page, unit, rel_tol, source or f"commbook.exercises {exercise}")(function)


def load_all() -> dict[str, Claim]:
    """Import every chapter's claims module (registering its claims); the registry."""
    from .. import chapters

    chapters.modules("claims")
    return REGISTRY


def get(name: str) -> Claim:
    load_all()
    if name not in REGISTRY:
        raise KeyError(f"unknown claim {name!r}")
    return REGISTRY[name]
