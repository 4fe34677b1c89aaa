"""Verdicts: code picks the case, the page holds the words.

A verdict function reads numbers and returns a :class:`Verdict`: a case key and the numbers the
sentence quotes. It declares every case it can return with :func:`cases`, so the page's
``{verdict}`` directive (commbook.verdict_directive) can be checked to word each of them::

    @cases("below", "above", "mixed")
    def model_vs_measured(measured, model) -> Verdict:
        r = measured / model
        key = "below" if (r > 1).all() else "above" if (r < 1).all() else "mixed"
        return Verdict(key, {"ratio_min": r.min(), "ratio_max": r.max()})

In the page, ``glued.verdict("ring_model", model_vs_measured(m, t))`` glues the case and the
numbers (as ``ring_model_ratio_min`` ...), and the Markdown holds one sentence per case::

    ```{verdict} ring_model
    below
    : The model lands below every measured ring ({glue:text}`ring_model_ratio_min:.2f` ...).

    above
    : ...
    ```
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

#: the MIME type under which a verdict is glued (the case, every case, the numbers)
MIME = "application/vnd.commbook.verdict+json"


@dataclass(frozen=True)
class Verdict:
    """A case key and the numbers its sentence quotes (name -> value)."""

    case: str
    numbers: dict[str, float] = field(default_factory=dict)
    cases: tuple[str, ...] = ()

    def __post_init__(self):
        if self.cases and self.case not in self.cases:
            raise ValueError(f"verdict case {self.case!r} is not one of {self.cases}")
        for name, value in self.numbers.items():
            if not isinstance(value, str) and not math.isfinite(float(value)):
                raise ValueError(f"verdict number {name!r} is {value!r}, not a finite number")

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {
            "text/plain": self.case,
            MIME: {"case": self.case, "cases": list(self.cases), "numbers": _plain(self.numbers)},
        }


def _plain(numbers):
    return {k: (v if isinstance(v, str) else float(v)) for k, v in numbers.items()}


def cases(*keys: str) -> Callable:
    """Declare the cases a verdict function may return; its Verdict carries them and a case
    outside them is an error (so a new branch without words in the page fails the build)."""
    if not keys or len(set(keys)) != len(keys):
        raise ValueError(f"cases: give distinct case keys, not {keys!r}")

    def wrap(function):
        @functools.wraps(function)
        def verdict_function(*args, **kwargs):
            v = function(*args, **kwargs)
            if not isinstance(v, Verdict):
                raise TypeError(f"{function.__qualname__} must return a Verdict, not {type(v).__name__}")
            return Verdict(v.case, v.numbers, tuple(keys))

        verdict_function.cases = tuple(keys)
        return verdict_function

    return wrap


BAND = 0.25  # "within": measured over model within 1 ± BAND at every row


@cases("within", "below", "above", "mixed")
def model_side(P, measured_t, model_t) -> Verdict:
    """Measured over model for every row given, keyed by its process count P (the caller names
    the rows): within 25 % of the model at every P, the model below every run, above every run,
    or above some and below others."""
    P = np.asarray(P, int)
    r = np.asarray(measured_t, float) / np.asarray(model_t, float)
    if r.size == 0 or not np.isfinite(r).all():
        raise ValueError(f"model_side: measured over model must be finite for every P, got {r}")
    lo, hi = int(np.argmin(r)), int(np.argmax(r))
    numbers = {
        "band_pct": BAND * 100,
        "ratio_min": r[lo],
        "P_of_min": P[lo],
        "ratio_max": r[hi],
        "P_of_max": P[hi],
        "P_first": P.min(),
        "P_last": P.max(),
    }
    if np.all(np.abs(r - 1) <= BAND):
        return Verdict("within", numbers)
    if r[lo] > 1:
        return Verdict("below", numbers)
    if r[hi] < 1:
        return Verdict("above", numbers)
    return Verdict("mixed", numbers)
