"""ORFEO datasets: the shipped summary tables (figures quoted in the seed reports) and,
when fetched, the raw student files they came from.

Summary tables live in ``data/orfeo/<name>.csv``: ``# key: value`` metadata lines, one header
row, data rows, every row naming its source document in a ``source`` column.
"""
from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from .data import DataFormatError

REPO_ROOT = Path(__file__).resolve().parents[2]
TABLES_DIR = REPO_ROOT / "data" / "orfeo"


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
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataFormatError(path, 0, "no such file") from None
    except UnicodeDecodeError as e:
        raise DataFormatError(path, 0, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    meta, header, rows = {}, None, []
    body = []
    for n, line in enumerate(text.splitlines(), start=1):
        if header is None and line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                meta[key.strip()] = value.strip()
            continue
        if not line.strip():
            continue
        body.append((n, line))
    if not body:
        raise DataFormatError(path, 0, "no header row and no data")
    parsed = list(csv.reader([line for _, line in body]))
    header_line, header = body[0][0], [h.strip() for h in parsed[0]]
    if len(set(header)) != len(header) or any(not h for h in header):
        raise DataFormatError(path, header_line, f"header has empty or repeated names: {header}")
    for (n, _), row in zip(body[1:], parsed[1:]):
        if len(row) != len(header):
            raise DataFormatError(path, n, f"{len(row)} fields but the header has {len(header)}")
        for name in required:
            if name not in header:
                raise DataFormatError(path, header_line, f"missing column '{name}'")
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


def summary_table(name: str) -> pd.DataFrame:
    """The shipped table ``data/orfeo/<name>.csv`` as a DataFrame (see read_table)."""
    path = TABLES_DIR / f"{name}.csv"
    if not path.exists():
        raise DataFormatError(path, 0, f"no summary table '{name}'; known: {table_names()}")
    return read_table(path, required=("source",))
