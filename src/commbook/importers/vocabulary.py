"""The words benchmark files use for benchmarks, algorithms, mappings, units and numbers,
and the names the tidy schema gives them."""

from __future__ import annotations

import functools
import math
import re

from .. import algorithms
from ..data import DataFormatError


class Refused(DataFormatError):
    """A file (or part of one) that cannot become tidy rows; the message names file and line."""


# Open MPI coll_tuned algorithm ids (``--mca coll_tuned_<op>_algorithm N``) as tidy-data labels,
# from commbook.algorithms (0 "ignore" is labelled "default").
COLL_TUNED = {op: algorithms.coll_tuned_labels(op) for op in algorithms.OMPI_COLL_TUNED}
BENCHMARK_ALIASES = {
    "broadcast": "bcast",
    "bcast": "bcast",
    "reduce": "reduce",
    "allreduce": "allreduce",
    "gather": "gather",
    "scatter": "scatter",
    "barrier": "barrier",
    "allgather": "allgather",
    "alltoall": "alltoall",
    "pingpong": "pingpong",
    "pingping": "pingping",
    "sendrecv": "sendrecv",
    "exchange": "exchange",
    "latency": "latency",
    "bw": "bw",
    "bandwidth": "bw",
    "bibw": "bibw",
    "ring": "ring",
    "matrix": "matrix_add",
    "matrixadd": "matrix_add",
    "jacobi": "jacobi",
}
TIME_FACTORS = {"s": 1e6, "ms": 1e3, "us": 1.0, "ns": 1e-3}
MACHINE_PATTERNS = [  # host or file-name fragments -> ORFEO node type
    (r"tnode|thin", "orfeo-thin"),
    (r"gnode|gpu", "orfeo-gpu"),
    (r"epyc", "orfeo-epyc"),
    (r"\bfat\d|fat_|_fat|\bfat\b", "orfeo-fat"),
]

NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
DECIMAL_COMMA = re.compile(r"^[-+]?\d+,\d+$")


# ----------------------------------------------------------------------------- small helpers
@functools.lru_cache(maxsize=4096)
def norm_name(name: str) -> str:
    """'Avg Latency(us)' -> 'avglatencyus': column names compared without case or punctuation."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


# Names students used for the algorithms (compared without case, '_', '-' or spaces):
# {operation: {alias: label}} from the records' aliases; the default's for any benchmark.
ALGORITHM_ALIASES = {
    op: {norm_name(w): a.label for a in algorithms.of(op) for w in a.aliases} for op in algorithms.OPERATIONS
}
DEFAULT_WORDS = {norm_name(w) for w in algorithms.DEFAULT_ALIASES}
ALIAS_WORDS = DEFAULT_WORDS.union(*ALGORITHM_ALIASES.values())


@functools.lru_cache(maxsize=256)
def canonical_benchmark(value) -> str:
    """'Broadcast' -> 'bcast'; names we do not know are kept (lower case, '_' for spaces)."""
    key = norm_name(value)
    if key in BENCHMARK_ALIASES:
        return BENCHMARK_ALIASES[key]
    return re.sub(r"[^a-z0-9_]+", "_", str(value).strip().lower()).strip("_")


@functools.lru_cache(maxsize=1024)
def canonical_algorithm(benchmark: str, value) -> tuple[str, int | None]:
    """('bcast', '5') -> ('binary_tree', 5); ('bcast', 'BinaryTree') -> ('binary_tree', 5)."""
    text = str(value).strip().strip('"')
    if text == "" or text.lower() == "nan":
        return "", None
    table = COLL_TUNED.get(benchmark)
    if re.fullmatch(r"\d+(\.0)?", text):
        n = int(float(text))
        if table and n < len(table):
            return table[n], n
        return f"library:{n}", n
    key = norm_name(text)
    alias = algorithms.DEFAULT_LABEL if key in DEFAULT_WORDS else ALGORITHM_ALIASES.get(benchmark, {}).get(key)
    name = alias or text.lower().replace(" ", "_").replace("-", "_")
    if table:
        for i, known in enumerate(table):
            if norm_name(known) == norm_name(name):
                return known, i
    return name, None


@functools.lru_cache(maxsize=256)
def canonical_mapping(value) -> tuple[str, str]:
    """(mapping, note): 'bycore' -> core; 'cache' -> core (a shared-cache pair); 'numa' -> unknown."""
    key = norm_name(value)
    for word in ("core", "socket", "node", "self"):
        if key in (word, f"by{word}", f"mapby{word}", f"map{word}"):
            return word, ""
    if key in ("sock", "bysock"):
        return "socket", ""
    if key == "cache":
        return "core", "channel=cache"
    if key in ("", "nan"):
        return "", ""
    if key == "unknown":
        return "unknown", ""
    return "unknown", f"map_by={key}"


def parse_number(text: str, decimal_comma: bool = False):
    """The float in a cell, None when empty, not a number, or not finite."""
    try:
        v = float(text)  # fast path: most cells are plain numbers
        if isinstance(text, str) and "_" in text:
            return None
    except (TypeError, ValueError):
        t = str(text).strip().strip('"').strip("'").strip()
        if decimal_comma and DECIMAL_COMMA.match(t):
            t = t.replace(",", ".")
        if not NUMBER.match(t):
            return None
        v = float(t)
    if not math.isfinite(v):
        return None
    return v


def is_number(text: str, decimal_comma: bool = False) -> bool:
    return parse_number(text, decimal_comma) is not None


def time_unit_of(column: str) -> str | None:
    """The unit a time column's name declares: 'Latency (us)' -> us, 'Runtime [sec]' -> s."""
    low = str(column).lower()
    if re.search(r"usec|\(us\)|\[us\]|_us\b|\bus\b|\(μs\)|μs", low):
        return "us"
    if re.search(r"\(ms\)|\[ms\]|msec|_ms\b", low):
        return "ms"
    if re.search(r"\(ns\)|\[ns\]|nsec|_ns\b", low):
        return "ns"
    if re.search(r"\[sec\]|\(sec\)|\[s\]|\(s\)|seconds|_s\b", low):
        return "s"
    return None
