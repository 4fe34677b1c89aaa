"""How byte counts are written for people: the one formatter of the text, tables and axes."""

from __future__ import annotations

import math

_UNITS = (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10))


def format_bytes(n: float, compact: bool = False, exact: bool = False) -> str:
    """'4 KiB', '2.3 KiB', '512 B', 'never' for inf (a crossover that does not happen).
    exact: a size that is not a whole number of units stays in bytes ('4097 B', a fit's segment
    boundary); compact: '4K', '512' as MPI benchmarks print sizes on an axis (exact too)."""
    if not math.isfinite(n):
        return "never"
    for unit, f in _UNITS:
        if n >= f and (not (compact or exact) or n % f == 0):
            value = f"{int(n // f)}" if n % f == 0 else f"{n / f:.3g}"
            return f"{value}{unit}" if compact else f"{value} {unit}iB"
    return f"{n:.0f}" if compact else f"{n:.0f} B"
