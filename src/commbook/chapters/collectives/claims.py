"""Claims of the three collectives chapters (book/collectives_algorithms.md,
collectives_library.md, collectives_orfeo.md): the recorded benchmarks, the lecture's table, the
exercises' parameters."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from statistics import median

from ... import config
from ...claims import claim, reference_claim
from ...claims.sources import per_tables_dir
from ...claims.sources import pingpong as pp

ALGORITHMS_PAGE = "collectives_algorithms"
LIBRARY_PAGE = "collectives_library"
ORFEO_PAGE = "collectives_orfeo"

ALLREDUCE_BENCH = "benchmarks/results/allreduce_algorithms.txt"
BUTTERFLY_BENCH = "benchmarks/results/butterfly_vs_allreduce.txt"
LECTURE = "commbook.chapters.collectives.LECTURE_BCAST (Malakar lecture, 'Timing - effect of data size')"
SEED = "data/orfeo/pingpong_seed.csv (Scorcia report, sec. 2)"


def _benchmark(name: str) -> str:
    root = config.checkout()
    if root is None:
        raise LookupError(f"{name} is in the checkout only (benchmarks/ is not in the wheel)")
    return (Path(root) / name).read_text(encoding="utf-8")


def allreduce_ratio(P: int, size: str, algorithm: str) -> float:
    """The 'ratio' column (median / MPI_Allreduce's median) of one row of the recorded
    allreduce_algorithms benchmark."""
    for line in _benchmark(ALLREDUCE_BENCH).splitlines():
        m = re.match(rf"^\s*{P}\s+{re.escape(size)}\s+{re.escape(algorithm)}\s+\S+\s+\S+\s+(\S+)", line)
        if m:
            return float(m.group(1))
    raise LookupError(f"{ALLREDUCE_BENCH}: no row P={P} {size} {algorithm}")


def library_messages(P: int, size: str) -> tuple[int, float]:
    """(messages, bytes in units of n) the library's MPI_Allreduce sent in one call, from the
    message counters recorded in butterfly_vs_allreduce."""
    pattern = rf"P={P} {re.escape(size)}: library sent \d+ pairs, (\d+) messages, ([\d.]+) x n bytes"
    m = re.search(pattern, _benchmark(BUTTERFLY_BENCH))
    if not m:
        raise LookupError(f"{BUTTERFLY_BENCH}: no library line for P={P} {size}")
    return int(m.group(1)), float(m.group(2))


@claim("coll-bench-ring-rabenseifner-1mib-max-dev", page=LIBRARY_PAGE, unit="%", source=ALLREDUCE_BENCH)
def _():
    return 100 * max(abs(allreduce_ratio(2, "1 MiB", a) - 1) for a in ("ring", "rabenseifner"))


@claim("coll-bench-butterfly-1mib", page=LIBRARY_PAGE, unit="times", source=ALLREDUCE_BENCH)
def _():
    return allreduce_ratio(2, "1 MiB", "butterfly-lh")


@claim("coll-bench-library-messages-p2-1mib", page=LIBRARY_PAGE, unit="", source=BUTTERFLY_BENCH)
def _():
    messages, _ = library_messages(2, "1 MiB")
    return messages / 2  # per process


@claim("coll-bench-library-bytes-per-rank-p4-1mib", page=LIBRARY_PAGE, unit="", source=BUTTERFLY_BENCH)
def _():
    _, bytes_n = library_messages(4, "1 MiB")
    return bytes_n / 4


def _lecture(column: str, count: int) -> float:
    from ...chapters.collectives import LECTURE_BCAST

    return median(LECTURE_BCAST[column][LECTURE_BCAST["count"].index(count)])


for _name, _column, _count in [
    ("coll-lecture-bcast-1e4-20", "bcast_s", 10_000),
    ("coll-lecture-sends-1e4-20", "sends_s", 10_000),
    ("coll-lecture-bcast-1e7-median", "bcast_s", 10_000_000),
    ("coll-lecture-sends-1e7-median", "sends_s", 10_000_000),
]:
    claim(_name, page=ORFEO_PAGE, unit="s", source=LECTURE)(lambda c=_column, n=_count: _lecture(c, n))


@claim("coll-thin-core-latency", page=ALGORITHMS_PAGE, unit="us", source=SEED)
def _():
    return pp("core", "ucx", "latency_us")


@claim("coll-thin-core-bandwidth", page=ALGORITHMS_PAGE, unit="MB/s", source=SEED)
def _():
    return pp("core", "ucx", "bandwidth_fit_MBps")


def _crossover_reference_args() -> list[float]:
    """The arguments the coll-crossover exercise's reference passes to crossover_size
    (P, lambda, b, segment bytes), read from its code; an argument that is not a literal
    (the link's parameters come from orfeo.link) is None."""
    from ...exercises import exercise

    tree = ast.parse(inspect.getsource(exercise("coll-crossover").expected))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "crossover_size":
            return [ast.literal_eval(a) if isinstance(a, ast.Constant) else None for a in node.args]
    raise LookupError("the coll-crossover reference does not call crossover_size")


@claim(
    "coll-crossover-segment",
    page=ALGORITHMS_PAGE,
    unit="KiB",
    source="commbook.exercises, the coll-crossover reference",
)
def _():
    return _crossover_reference_args()[3] / 1024


reference_claim(
    "coll-crossover-answer",
    ALGORITHMS_PAGE,
    "KiB",
    "coll-crossover",
    per=1024,
    rel_tol=0.1,
    source="commbook.exercises, the coll-crossover reference (about: rounded)",
)


# collectives_library: ORFEO's linear broadcast in LogP terms, and the lecture's broadcast
ORFEO_BCAST = "data/orfeo/derived/bcast.csv.gz (giuliofantuzzi, osu_bcast basic_linear, map by core)"


@per_tables_dir
def _linear_facts() -> dict:
    from .collectives_library import orfeo_linear_facts

    return orfeo_linear_facts()


def _linear(key: str) -> float:
    return _linear_facts()[key]


for _name, _key, _unit in [
    ("coll-logp-ratio-1b-p48", "ratio_1", ""),
    ("coll-logp-ratio-1mib-p48", f"ratio_{1 << 20}", ""),
    ("coll-logp-g-core", "g_core", "µs"),
    ("coll-logp-lambda-core", "lambda_core", "µs"),
    ("coll-logp-g-node", "g_node", "µs"),
    ("coll-logp-lambda-node", "lambda_node", "µs"),
]:
    claim(_name, page=LIBRARY_PAGE, unit=_unit, source=ORFEO_BCAST)(lambda k=_key: _linear(k))


def _lecture_facts() -> dict:
    """The lecture's broadcast against the model (chapters.collectives.lecture_bcast_comparison):
    the measured ratio loop/bcast at both ends, the model's worst factor over every row, and the
    row where the model is most optimistic."""
    from .common import lecture_bcast_comparison

    t, _, _ = lecture_bcast_comparison()
    over = t["bcast model (ms)"] / t["bcast measured (ms)"]
    i = int((t["ratio model"] / t["ratio measured"]).idxmax())
    return {
        "small": float(t["ratio measured"].iloc[0]),
        "large": float(t["ratio measured"].iloc[-1]),
        "worst": float(max(over.max(), 1 / over.min())),
        "opt_bytes": float(t["bytes"][i]),
        "opt_measured": float(t["ratio measured"][i]),
        "opt_model": float(t["ratio model"][i]),
    }


for _name, _key, _unit in [
    ("coll-lecture-ratio-small", "small", ""),
    ("coll-lecture-ratio-large", "large", ""),
    ("coll-lecture-worst-factor", "worst", ""),
    ("coll-lecture-opt-bytes", "opt_bytes", "bytes"),
    ("coll-lecture-opt-measured", "opt_measured", ""),
    ("coll-lecture-opt-model", "opt_model", ""),
]:
    claim(_name, page=LIBRARY_PAGE, unit=_unit, source=LECTURE)(lambda k=_key: _lecture_facts()[k])
