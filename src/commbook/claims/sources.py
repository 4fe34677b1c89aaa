"""Reading the shipped tables the claims are computed from (always at call time, so a test can
point orfeo.TABLES_DIR at a changed copy)."""

from __future__ import annotations

import functools

from .. import orfeo


def tables_dir():
    """data/orfeo as the readers see it now (a test may point it at a changed copy)."""
    from ..orfeo import tables

    return tables.TABLES_DIR


def per_tables_dir(function):
    """Cache `function` per data/orfeo folder: a test that points it at a changed copy reads the copy."""
    cached = functools.lru_cache(maxsize=16)(lambda folder, *args: function(*args))
    return functools.wraps(function)(lambda *args: cached(str(tables_dir()), *args))


def seed_row(table: str, **where):
    """The one row of data/orfeo/<table>.csv matching every column=value in `where`."""
    df = orfeo.summary_table(table)
    for column, value in where.items():
        df = df[df[column] == value]
    if len(df) != 1:
        raise LookupError(f"{table}: {len(df)} rows match {where}, expected 1")
    return df.iloc[0]


def seed_value(table: str, column: str, **where) -> float:
    return float(seed_row(table, **where)[column])


def pingpong(mapping: str, transport: str, column: str, machine: str = "orfeo-thin") -> float:
    """A figure of the Scorcia report's ping-pong table (data/orfeo/pingpong_seed.csv)."""
    return seed_value("pingpong_seed", column, machine=machine, mapping=mapping, transport=transport)


def reference(exercise: str) -> float:
    """The reference value of one of the book's exercises (commbook.exercises)."""
    from .. import exercises

    return float(exercises.expected(exercise))
