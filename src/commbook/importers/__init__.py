"""Import benchmark output (IMB, OSU, student CSVs, the course Jacobi code) into the tidy schema.

One entry point, :func:`import_file`: it reads the file, detects its format (or takes the one
given), parses it and returns a tidy table (``commbook.data`` schema). Whatever a file's text
does not say (which benchmark, which mapping, how many processes) comes from ``hints``: the
command line and host names printed in the file, the file name, and explicit hints from the
caller (the ORFEO catalog, or ``commbook import --benchmark ...``). Explicit hints win over
what the rows say, so a catalog can correct a known wrong label.

A file that cannot be imported raises :class:`Refused` (a ``DataFormatError``): one line naming
the file, the line and what is wrong. Unexpected errors are turned into a Refused saying
"internal error", so a directory import never stops on a traceback.

Formats (``FORMATS``):

    imb          IMB-MPI1 output: the standard text, and csv/tab/; copies of its tables
                 (R exports, decimal commas, several runs concatenated, model columns added)
    osu          OSU micro-benchmark text output (latency, bw, collectives), several blocks,
                 student marker lines between them ("Testing with cores: 0 and 4")
    table        CSV with a header row: long, short and wide collective tables, latency
                 tables, ring/matrix/Jacobi summaries
    values       one number per line; the process counts come from hints (np_start, np_step)
    jacobi       stdout of the course Jacobi code (Maxtime, Mintime, ..., MLUPs lines)
    rank-times   headerless ``rank,time`` lines, one block per process count 1, 2, 3, ...
    pairs        headerless ``np,seconds`` lines (repeats are summarised)
    time         one ``/usr/bin/time`` line (user, system, elapsed, CPU, CMD)
    matrix-text  ``grid: (x y z),matrix sizes: AxBxC, mintime: t`` lines
"""

from __future__ import annotations

import csv
import math
import statistics
from pathlib import Path

import pandas as pd

from ..data import DataFormatError
from .collector import Collector
from .imb import parse_imb
from .osu import parse_osu
from .small_formats import parse_jacobi, parse_matrix_text, parse_pairs, parse_rank_times, parse_time_line, parse_values
from .sniffing import MAX_BYTES, detect_format, infer_machine, read_text
from .tables import parse_table
from .vocabulary import COLL_TUNED, TIME_FACTORS, Refused, canonical_algorithm, canonical_benchmark, canonical_mapping

__all__ = [
    "COLL_TUNED",
    "FORMATS",
    "FORMAT_ALIASES",
    "MAX_BYTES",
    "TIME_FACTORS",
    "Refused",
    "canonical_algorithm",
    "canonical_benchmark",
    "canonical_mapping",
    "describe",
    "detect_format",
    "import_file",
    "infer_machine",
    "is_finite_table",
    "iter_files",
    "read_text",
]


FORMATS = {
    "imb": parse_imb,
    "osu": parse_osu,
    "table": parse_table,
    "values": parse_values,
    "jacobi": parse_jacobi,
    "rank-times": parse_rank_times,
    "pairs": parse_pairs,
    "time": parse_time_line,
    "matrix-text": parse_matrix_text,
}
NOT_DATA = {
    ".md",
    ".rst",
    ".pdf",
    ".png",
    ".jpg",
    ".jpeg",
    ".svg",
    ".ipynb",
    ".py",
    ".c",
    ".h",
    ".sh",
    ".job",
    ".slurm",
    ".xlsx",
    ".zip",
    ".gz",
}
FORMAT_ALIASES = {
    "csv": "table",
    "long": "table",
    "short": "table",
    "wide": "table",
    "ring": "rank-times",
    "usr-bin-time": "time",
}


# ------------------------------------------------------------------------------ entry points
def import_file(path, fmt: str | None = None, hints: dict | None = None, notes: list | None = None) -> pd.DataFrame:
    """Tidy rows from one file. Raises Refused (one line: file, line, reason)."""
    path = Path(path)
    hints = dict(hints or {})
    if hints.get("skip"):
        raise Refused(path, 0, f"left out: {hints['skip']}")
    if path.suffix.lower() in NOT_DATA or path.name.upper().startswith(("LICENSE", "README", "PROVENANCE")):
        raise Refused(path, 0, f"documentation or code ({path.name}), not benchmark output")
    text = read_text(path)
    try:
        if fmt:
            fmt = FORMAT_ALIASES.get(fmt, fmt)
            if fmt not in FORMATS:
                raise Refused(path, 0, f"unknown format '{fmt}'; known: {sorted(FORMATS)}")
            if not text.strip():
                raise Refused(path, 0, "empty file")
        else:
            fmt = hints.get("format") or detect_format(text, path)
        col = Collector(path, hints, fmt)
        FORMATS[fmt](text, col)
        df = col.table()
        if notes is not None:
            notes.extend(col.notes)
        return df
    except DataFormatError:
        raise
    except (
        ValueError,
        IndexError,
        KeyError,
        TypeError,
        ZeroDivisionError,
        OverflowError,
        AttributeError,
        statistics.StatisticsError,
        csv.Error,
    ) as e:
        doing = f"reading it as {fmt}" if fmt else "detecting its format"
        raise Refused(path, 0, f"internal error while {doing}: {type(e).__name__}: {e}") from e


def iter_files(paths) -> list[Path]:
    """Files named, and every file under directories named (sorted; hidden files skipped)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(
                sorted(
                    f
                    for f in p.rglob("*")
                    if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)
                )
            )
        else:
            out.append(p)
    return out


def describe(df: pd.DataFrame) -> str:
    """'412 rows: bcast (core, socket), np 2..48, sizes 1..1048576 B'."""
    if df.empty:
        return "0 rows"
    benches = ", ".join(sorted(df.benchmark.unique()))
    maps = ", ".join(sorted(df.mapping.unique()))
    return (
        f"{len(df)} rows: {benches} ({maps}), np {df.np.min()}..{df.np.max()}, "
        f"sizes {df.size_bytes.min()}..{df.size_bytes.max()} B"
    )


def is_finite_table(df: pd.DataFrame) -> bool:
    return bool(df[["t_us", "t_min_us", "t_max_us"]].map(math.isfinite).all().all())
