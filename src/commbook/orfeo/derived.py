"""The derived tables (``data/orfeo/derived/``): rows merged per configuration, and reading them."""

from __future__ import annotations

import functools
import gzip
import io
from pathlib import Path

import pandas as pd

from ..data import DataFormatError
from .tables import TABLES_DIR, DataUnavailable

DERIVED_DIR = TABLES_DIR / "derived"  # aggregates of the raw files: see commbook.orfeo_derive


def _derived_text(path: Path) -> str:
    try:
        data = path.read_bytes()
        return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as e:
        raise DataFormatError(path, 0, f"cannot read derived table: {e}") from None


@functools.lru_cache(maxsize=32)
def _derived_cached(path: str, mtime: float) -> pd.DataFrame:
    from ..data import FLOAT_COLUMNS, INT_COLUMNS

    text = _derived_text(Path(path))
    lines = text.splitlines(keepends=True)
    skip = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    ints = INT_COLUMNS + ["runs", "files", "rows"]
    try:
        df = pd.read_csv(io.StringIO("".join(lines[skip:])), keep_default_na=False, dtype=str)
        for c in df.columns:
            if c in ints:
                df[c] = df[c].astype("int64")
            elif c in FLOAT_COLUMNS:
                df[c] = df[c].astype(float)
    except (ValueError, pd.errors.ParserError) as e:
        raise DataFormatError(path, skip + 1, f"malformed derived table: {e}") from None
    return df


def derived_table(name: str) -> pd.DataFrame:
    """data/orfeo/derived/<name>.csv.gz (a benchmark) or index.csv, as a DataFrame."""
    path = DERIVED_DIR / (name if name.endswith(".csv") else f"{name}.csv.gz")
    if not path.is_file():
        raise DataUnavailable(
            f"no derived ORFEO table {path.name} in {DERIVED_DIR} (regenerate with `commbook data derive`)"
        )
    return _derived_cached(str(path), path.stat().st_mtime).copy()


RUN_PARAMS = {"run", "block"}  # which of several runs a row is: merged, counted in 'runs'
DROPPED_PARAMS = {"bw_MBps"}  # n / t of one run: recomputed from t_us by whoever needs it
CONFIG_KEY = [
    "dataset",
    "benchmark",
    "algorithm",
    "mapping",
    "transport",
    "machine",
    "mpi_library",
    "np",
    "size_bytes",
    "params",
]


def _config_params(params: str) -> str:
    return ";".join(
        item for item in str(params).split(";") if item and item.partition("=")[0] not in RUN_PARAMS | DROPPED_PARAMS
    )


def _join_sources(sources) -> str:
    """'repo@c:a', 'repo@c:b|c' -> 'repo@c:a|b|c' (the files of one dataset share a repository
    and commit); sources of several repositories are kept whole."""
    heads, paths = set(), set()
    for s in sources:
        head, _, tail = s.partition(":")
        heads.add(head)
        paths.update(tail.split("|"))
    if len(heads) == 1:
        return f"{heads.pop()}:{'|'.join(sorted(paths))}"
    return "|".join(sorted(set(sources)))


def per_configuration(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per dataset, configuration and size: t_us the median over the runs merged,
    t_min_us/t_max_us their min/max, reps summed, 'runs' counted, sources joined; sorted.
    Rows that differ only in run=/block= (or the file) are merged; bw_MBps (n / t) is dropped.
    Idempotent, so derived tables and raw rows go through it alike (figures pool students)."""
    df = rows.copy()
    if "dataset" not in df.columns:
        df["dataset"] = ""
    df["params"] = df["params"].map(_config_params)
    if "runs" not in df.columns:
        df["runs"] = 1
    for c in CONFIG_KEY:
        if df[c].dtype == object:
            df[c] = df[c].fillna("")
    g = df.groupby(CONFIG_KEY, sort=True, dropna=False)
    out = g.agg(
        t_us=("t_us", "median"),
        t_min_us=("t_min_us", "min"),
        t_max_us=("t_max_us", "max"),
        reps=("reps", "sum"),
        runs=("runs", "sum"),
        source=("source", _join_sources),
    )
    out = out.reset_index()
    return out[CONFIG_KEY + ["t_us", "t_min_us", "t_max_us", "reps", "runs", "source"]]
