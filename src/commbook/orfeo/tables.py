"""The shipped summary tables: figures quoted in the seed reports, one ``data/orfeo/<name>.csv``
each, every row naming its source."""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd

from .. import config
from ..data import DataFormatError, read_metadata_csv

TABLES_DIR = config.data_dir() / "orfeo"


def _numeric(values: list[str]):
    """The column as numbers when every non-empty cell is one, else None."""
    cells = [v.strip() for v in values]
    if not any(cells):
        return None
    try:
        return [float(v) if v else float("nan") for v in cells]
    except ValueError:
        return None


def read_table(path, required=()) -> pd.DataFrame:
    """Read a summary table; metadata lines go to ``df.attrs['meta']``.

    Numeric columns become floats (int when every value is integral), empty cells NaN.
    A malformed file raises DataFormatError naming the file and line.
    """
    path = Path(path)
    meta, header_line, header, all_rows = read_metadata_csv(path)
    if len(set(header)) != len(header) or any(not h for h in header):
        raise DataFormatError(path, header_line, f"header has empty or repeated names: {header}")
    for name in required:
        if name not in header:
            raise DataFormatError(path, header_line, f"missing column '{name}'")
    rows = []
    for n, row in all_rows:
        for name in required:
            if not row[header.index(name)].strip():
                raise DataFormatError(path, n, f"empty '{name}' (every row must say where it came from)")
        rows.append((n, row))
    columns = {}
    for j, name in enumerate(header):
        values = [row[j] for _, row in rows]
        nums = _numeric(values)
        if nums is None:
            columns[name] = [v.strip() for v in values]
        else:
            columns[name] = nums
    df = pd.DataFrame(columns, columns=header)
    for name in header:
        s = df[name]
        if s.dtype.kind == "f" and s.notna().all() and (s == s.round()).all():
            df[name] = s.astype("int64")
    df.attrs["meta"] = meta
    df.attrs["path"] = str(path)
    return df


def table_names() -> list[str]:
    """Names of the shipped summary tables (without .csv), catalog excluded."""
    return sorted(p.stem for p in TABLES_DIR.glob("*.csv") if p.stem != "catalog")


@functools.lru_cache(maxsize=64)
def _read_summary(path: Path, stamp: tuple) -> pd.DataFrame:
    return read_table(path, required=("source",))


def summary_table(name: str) -> pd.DataFrame:
    """The shipped table ``data/orfeo/<name>.csv`` as a DataFrame (see read_table), a copy of
    the one read while the file is unchanged (the book's claims ask for a table 600 times)."""
    path = TABLES_DIR / f"{name}.csv"
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DataFormatError(path, 0, f"no summary table '{name}'; known: {table_names()}") from None
    return _read_summary(path, (st.st_ino, st.st_size, st.st_mtime_ns)).copy()


# ------------------------------------------------------------------------------------ load
class DataUnavailable(LookupError):
    """Neither raw ORFEO data nor a shipped summary table can answer the request."""
