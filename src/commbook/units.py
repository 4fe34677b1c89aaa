"""How byte counts are written for people and read back: the one formatter of the text, tables
and axes, and the one reader of sizes as the kernels' options write them ('64K', '0:1M', 'a,b')."""

from __future__ import annotations

import math
import re

_UNITS = (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10))
_FACTOR = {"": 1, **dict(_UNITS)}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?)\s*([KMG]?)(?:i?B)?\s*", re.IGNORECASE)


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


def parse_size(text) -> int:
    """'4' -> 4, '64K' -> 65536, '1M', '1MiB', '1.5K' -> bytes (K, M, G are powers of 1024).
    ValueError with one line for anything else."""
    m = _SIZE.fullmatch(str(text))
    if not m:
        raise ValueError(f"'{text}' is not a byte count (e.g. 8, 64K, 1M)")
    return int(float(m.group(1)) * _FACTOR[m.group(2).upper()])


def parse_sizes(text) -> list[int]:
    """'a,b,c' (sorted, each once), 'MIN:MAX' (0 when MIN is 0, then MIN doubling up to MAX, as
    the collective kernels read it) or 'MIN:MAX:FACTOR'. ValueError with one line."""
    text = str(text).strip()
    if ":" not in text:
        sizes = sorted({parse_size(p) for p in text.split(",") if p.strip()})
        if not sizes:
            raise ValueError("no sizes given; give MIN:MAX or a list (e.g. 0:1M or 8,1K,1M)")
        return sizes
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise ValueError(f"'{text}' is not MIN:MAX or MIN:MAX:FACTOR")
    lo, hi = parse_size(parts[0]), parse_size(parts[1])
    try:
        factor = float(parts[2]) if len(parts) == 3 else 2.0
    except ValueError:
        raise ValueError(f"'{text}': FACTOR '{parts[2]}' is not a number") from None
    if lo > hi:
        raise ValueError(f"MIN {lo} B is larger than MAX {hi} B")
    if factor <= 1:
        raise ValueError(f"'{text}': FACTOR must be larger than 1")
    sizes, s = ([0] if lo == 0 else []), max(lo, 1)
    while s <= hi:
        sizes.append(int(s))
        s *= factor
    return sizes
