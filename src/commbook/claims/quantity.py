"""Stated quantities: '0.20 µs', '12 060 MB/s', '97 %', '×1.5', '3 times' -> number and unit,
and the tolerance the stated digits imply."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# dimension -> {unit: factor to the dimension's base unit}
_BY_DIMENSION = {
    "count": {"": 1.0},
    "time": {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0},
    "bytes": {"B": 1.0, "bytes": 1.0, "KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
    | {"KiB": 2.0**10, "MiB": 2.0**20, "GiB": 2.0**30},
    "bandwidth": {"B/s": 1.0, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9}
    | {"Mb/s": 1e6 / 8, "Gb/s": 1e9 / 8, "Mbps": 1e6 / 8}  # bits per second
    | {"GiB/s": 2.0**30, "MiB/s": 2.0**20},
    "ratio": {"%": 0.01, "×": 1.0, "times": 1.0, "x": 1.0},
    "frequency": {"GHz": 1e9, "MHz": 1e6},
    "transfers": {"GT/s": 1e9},
    "updates": {"MLUP/s": 1e6, "MLUPs": 1e6},
    "flops": {"GFLOP/s": 1e9},
    "intensity": {"flop/B": 1.0},
    "inverse intensity": {"B/flop": 1.0},
}
# unit -> (dimension, factor to the dimension's base unit)
UNITS: dict[str, tuple[str, float]] = {u: (dim, f) for dim, units in _BY_DIMENSION.items() for u, f in units.items()}
_UNIT_ALTERNATION = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True) if u)
# digits with thousands separators (space, thin space, narrow no-break space, comma) and decimals
NUMBER = r"[-−+]?\d{1,3}(?:[ \u2009\u202f,]\d{3})+(?:\.\d+)?|[-−+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_STATED = re.compile(
    rf"^\s*(?P<about>(?:about|around|roughly|~|≈)\s*)?(?P<times>[×x]\s*)?(?P<number>{NUMBER})\s*(?P<unit>{_UNIT_ALTERNATION})?\s*$"
)


class StatedError(ValueError):
    pass


@dataclass(frozen=True)
class Stated:
    text: str
    value: float  # in `unit`
    unit: str
    half_ulp: float  # half a unit of the last stated digit, in `unit`

    def in_unit(self, unit: str) -> tuple[float, float]:
        """(value, half_ulp) converted to `unit` (same dimension, else StatedError)."""
        dim, factor = UNITS[self.unit]
        want_dim, want_factor = UNITS[unit]
        if dim == "count" and unit in ("×", "times", "x"):  # '3.1 to 5.9 times': a bare factor
            dim = "ratio"
        if dim != want_dim:
            raise StatedError(f"{self.text!r} is a {dim}, the claim is in {unit or 'a count'} ({want_dim})")
        scale = factor / want_factor
        return self.value * scale, self.half_ulp * scale


def parse_number(text: str, rounded: bool = False) -> tuple[float, float]:
    """(value, half a unit of its last digit): '12 060' -> (12060, 0.5); '0.20' -> (0.2, 0.005);
    '200' -> (200, 0.5): a number claims every digit it shows. With `rounded` (the prose says
    'about 200'), trailing zeros of an integer count as rounding: (200, 5)."""
    clean = re.sub(r"[ \u2009\u202f,]", "", text).replace("−", "-")
    value = float(clean)
    mantissa = re.split(r"[eE]", clean)[0].lstrip("+-")
    exponent = int(re.split(r"[eE]", clean)[1]) if re.search(r"[eE]", clean) else 0
    if "." in mantissa:
        ulp = 10.0 ** -len(mantissa.split(".")[1])
    else:
        digits = mantissa.rstrip("0")
        ulp = 10.0 ** (len(mantissa) - len(digits)) if digits and rounded else 1.0
    return value, 0.5 * ulp * 10.0**exponent


def parse_stated(text: str) -> Stated:
    """'0.20 µs' -> Stated(0.2, 'µs', 0.005); 'about 40 %' -> Stated(40, '%', 5) (a round number
    is only rounding when the text says so); a text without a number raises StatedError."""
    m = _STATED.match(text)
    if not m:
        raise StatedError(f"{text!r} is not a number with an optional unit (e.g. '0.20 µs', '97 %', '×1.5', '3 times')")
    value, half = parse_number(m.group("number"), rounded=bool(m.group("about")))
    unit = m.group("unit") or ("×" if m.group("times") else "")
    return Stated(text.strip(), value, unit, half)


def agrees(stated: Stated, computed: float, unit: str, rel_tol: float | None) -> tuple[bool, float]:
    """Does the stated quantity agree with `computed` (in `unit`)? (verdict, tolerance used):
    within half a unit of the last stated digit, or within rel_tol of the computed value."""
    value, half = stated.in_unit(unit)
    tol = max(half * (1 + 1e-9), (rel_tol or 0.0) * abs(computed))
    if not math.isfinite(computed):
        return False, tol
    return abs(value - computed) <= tol, tol
