"""The C exercises' performance point: the reader's program on simulated ORFEO against the reference.

A correct solution can still be slow in a way the harnesses' message counters cannot see: a
butterfly whose pairwise exchanges are serialised (the same messages, two transfers per step), a
gather that waits for its children in a fixed order, a ring where only rank 0 sends first. Timed
on this machine the difference drowns in the load of its two shared cores; simulated with
SimGrid's SMPI (commbook.simulate) on ORFEO's calibrated THIN node the time is deterministic, so
the verdict is the same on every machine. The reader's file and the shipped solution
(kernels_c/exercises/<name>_solution.c) run the same way, with the same options; the reader keeps
the point when, at every size (and root), their time is at most TOLERANCE times the reference's.
Without ``smpirun`` the point is not graded and the line says why (``Performance.ok is None``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import config, kernels
from ..units import format_bytes
from .core import Verdict
from .feedback import say

PLATFORM, NODES, MAP_BY = "orfeo-thin", 1, "core"  # one THIN node: 16 ranks over its two sockets
NP = 16
TOLERANCE = 1.25  # the reader's time may exceed the reference's by 25 %: a serialised exchange costs ~1.5-2x
TIMEOUT = 120.0  # wall seconds one simulated run may take (a few seconds when it works)

# the kernel options of the simulated runs (short: the simulated clock needs no repetition) and
# the output columns that identify a row and give its time
RUNS = {
    "ring": ({"sizes": "4,64K", "repetitions": 2}, ("size_bytes",), "t_median_us"),
    "gather": ({"sizes": "1K,256K"}, ("size_bytes", "root"), "t_us"),
    "butterfly": (
        {"algorithm": "mine", "sizes": "8,64K", "iterations": 3, "repetitions": 1},
        ("size_bytes",),
        "t_median_us",
    ),
}


@dataclass
class Performance:
    """The performance verdict of one C exercise: ok True / False, or None when not graded."""

    name: str
    ok: bool | None
    why: str = ""  # why it was not graded, or why the reader's run failed (feedback.toml's words)
    rows: list = field(default_factory=list)  # (what, the reader's µs, the reference's µs)
    reason: str = ""  # the case key of `why`: no_smpi, no_build, timeout, smpi_fails, missing_rows

    @property
    def case(self) -> str:
        """not_graded, fails, fast_enough or too_slow (the key of the line's words)."""
        if self.ok is None:
            return "not_graded"
        return "fails" if not self.rows else "fast_enough" if self.ok else "too_slow"

    def worst(self):
        return max(self.rows, key=lambda r: r[1] / r[2]) if self.rows else None

    def line(self) -> str:
        """One line: the verdict with the simulated times against the reference's."""
        where = say("performance.where", P=NP)
        if self.ok is None:
            return say("performance.not_graded", name=self.name, why=self.why)
        if not self.rows:
            return say("performance.fails", name=self.name, where=where, why=self.why)
        times = "; ".join(say("performance.time", what=w, mine=m, reference=r) for w, m, r in self.rows)
        if self.ok:
            return say("performance.fast_enough", name=self.name, where=where, times=times)
        what, mine, ref = self.worst()
        return say(
            "performance.too_slow",
            name=self.name,
            where=where,
            what=what,
            mine=mine,
            ratio=mine / ref,
            reference=ref,
            tolerance=TOLERANCE,
            times=times,
        )


def reference_path(name: str) -> Path:
    return config.kernels_dir() / "exercises" / f"{name}_solution.c"


def reader_file(path) -> Path:
    """The reader's file: a path from here, or from the repository root (as the checks take it)."""
    p = Path(path)
    for candidate in (p, config.kernels_dir().parent / p):
        if candidate.exists():
            return candidate.resolve()
    raise FileNotFoundError(f"no file {p} (looked here and in {config.kernels_dir().parent})")


def _times(run, keys, column) -> dict:
    t = run.output.table
    out = {}
    for row in t.itertuples(index=False):
        r = row._asdict()
        what = format_bytes(int(r["size_bytes"])) + "".join(f", {k} {r[k]}" for k in keys[1:])
        out[what] = float(r[column])
    return out


def simulated_performance(name: str, path, timeout: float = TIMEOUT) -> Performance:
    """Simulate the reader's file and the reference solution of exercise `name` on ORFEO and judge."""
    from ..simulate import platforms, runner

    if name not in RUNS:
        raise KeyError(f"no performance check for {name!r}; known: {sorted(RUNS)}")
    st = runner.status()
    if not st.ok:
        return Performance(name, None, say("performance.why.no_smpi", status=st.line()), reason="no_smpi")
    options, keys, column = RUNS[name]
    platform = platforms.platform(PLATFORM, NODES)
    ref = _times(runner.run(reference_path(name), platform, NP, MAP_BY, options, timeout), keys, column)
    try:
        mine = _times(
            runner.run(reader_file(path), platform, NP, MAP_BY, options, timeout, use_cache=False), keys, column
        )
    except kernels.CompileError as e:
        why = say("performance.why.no_build", error=str(e).splitlines()[-1])
        return Performance(name, False, why, reason="no_build")
    except kernels.KernelTimeout:
        return Performance(name, False, say("performance.why.timeout", timeout=timeout), reason="timeout")
    except kernels.KernelError as e:
        why = say("performance.why.smpi_fails", error=str(e).splitlines()[0])
        return Performance(name, False, why, reason="smpi_fails")
    rows = [(what, mine[what], ref[what]) for what in ref if what in mine]
    if len(rows) != len(ref):
        why = say("performance.why.missing_rows", missing=sorted(set(ref) - set(mine)))
        return Performance(name, False, why, reason="missing_rows")
    return Performance(name, all(m <= TOLERANCE * r for _, m, r in rows), rows=rows)


def check_performance(name: str, path) -> Verdict:
    """Print the performance line; False only when the reader's program is too slow (or fails).
    The verdict's case is the line's (not_graded, fails, fast_enough, too_slow)."""
    perf = simulated_performance(name, path)
    print(perf.line())
    return Verdict(perf.ok is not False, perf.case, reason=perf.reason)
