"""The MPI primer (book/mpi_primer.md): run its C examples (kernels_c/examples/) and read what
they printed: which send modes waited for the receiver (verdicts worded in the page), the
Cartesian grid."""

from __future__ import annotations

from ... import kernels
from ...units import format_bytes
from ...verdict import Verdict, cases

EXAMPLES = ("point_to_point", "send_modes", "cartesian", "collectives")


def run_example(name: str, np: int, timeout: float = 120.0, **options) -> kernels.KernelOutput:
    """Compile kernels_c/examples/<name>.c and run it on np ranks (it checks its own answer:
    a wrong result raises ValidationFailed)."""
    if name not in EXAMPLES:
        raise KeyError(f"no primer example {name!r}; known: {list(EXAMPLES)}")
    return kernels.run_mpiexec(f"examples/{name}", np, options, timeout=timeout)


def show(out: kernels.KernelOutput, library: bool = False) -> None:
    """Print a run's output as the program wrote it (without the long library banner)."""
    for line in out.text.splitlines():
        if line.startswith("# mpi_library:") and not library:
            line = f"# mpi_library: {kernels.short_library(line.split(':', 1)[1])}"
        print(line)


def send_modes_table(out: kernels.KernelOutput):
    """The send_modes table with a computed column: did the send call wait for the receiver
    (return time above half the receiver's delay)?"""
    t = out.table.copy()
    t["waited_for_receiver"] = waited_for_receiver(t.return_ms, float(out.meta["delay_ms"]))
    return t


def waited_for_receiver(return_ms, delay_ms: float):
    """A send waited for the receiver when it took more than half the receiver's delay."""
    return return_ms > delay_ms / 2


def waited(out: kernels.KernelOutput, mode: str, large: bool) -> bool:
    """Whether the send of `mode` (small or large message) waited for the receiver."""
    t = send_modes_table(out)
    rows = t[t["mode"] == mode].sort_values("size_bytes")
    return bool(rows.waited_for_receiver.iloc[-1 if large else 0])


def large_standard_send(out: kernels.KernelOutput) -> tuple[float, float]:
    """The return time of the large standard send and the receiver's delay, in ms."""
    rows = out.table[out.table["mode"] == "standard"].sort_values("size_bytes")
    return float(rows.return_ms.iloc[-1]), float(out.meta["delay_ms"])


@cases("first", "later")
def polls(out: kernels.KernelOutput) -> Verdict:
    """The non-blocking ring shift: the most MPI_Test calls a rank made, the last of which found
    its message (so polls - 1 calls found nothing and left time a real code could compute in)."""
    n = int(out.table.rank_polls_max.iloc[0])
    if n < 1:
        raise ValueError(f"point_to_point reported {n} MPI_Test calls; the loop makes at least one")
    return Verdict("first" if n == 1 else "later", {"polls": n, "missed": n - 1})


def _mode_rows(out: kernels.KernelOutput, mode: str):
    t = send_modes_table(out)
    rows = t[t["mode"] == mode].sort_values("size_bytes")
    if len(rows) != 2:
        raise ValueError(f"send_modes: expected a small and a large {mode} send, got {len(rows)} rows")
    return rows


@cases("both_buffered", "both_waited", "small_buffered", "small_waited")
def standard_send(out: kernels.KernelOutput) -> Verdict:
    """The two standard-send rows (small, large): which of them waited for the receiver."""
    rows = _mode_rows(out, "standard")
    small, large = (bool(w) for w in rows.waited_for_receiver)
    numbers = {
        "small": format_bytes(int(rows.size_bytes.iloc[0]), exact=True),
        "large": format_bytes(int(rows.size_bytes.iloc[1]), exact=True),
        "small_ms": float(rows.return_ms.iloc[0]),
        "large_ms": float(rows.return_ms.iloc[1]),
        "delay_ms": float(out.meta["delay_ms"]),
    }
    if small == large:
        return Verdict("both_waited" if small else "both_buffered", numbers)
    return Verdict("small_waited" if small else "small_buffered", numbers)


@cases("as_defined", "contradicts")
def other_modes(out: kernels.KernelOutput) -> Verdict:
    """The six rows of the synchronous, buffered and ready sends: as the standard defines them
    (both synchronous sends waited, no buffered or ready send did), or a row that contradicts it."""
    numbers, agree = {}, True
    for mode, short, should_wait in (
        ("synchronous", "ssend", True),
        ("buffered", "bsend", False),
        ("ready", "rsend", False),
    ):
        rows = _mode_rows(out, mode)
        numbers |= {
            f"{short}_small_ms": float(rows.return_ms.iloc[0]),
            f"{short}_large_ms": float(rows.return_ms.iloc[1]),
        }
        agree = agree and bool((rows.waited_for_receiver == should_wait).all())
    numbers["others_max_ms"] = max(v for k, v in numbers.items() if not k.startswith("ssend"))
    return Verdict("as_defined" if agree else "contradicts", numbers)
