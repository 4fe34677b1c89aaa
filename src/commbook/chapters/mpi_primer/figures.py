"""The MPI primer (book/mpi_primer.md): run its C examples (kernels_c/examples/) and read what
they printed: which send modes waited for the receiver, the Cartesian grid."""

from __future__ import annotations

from ... import kernels
from ...units import format_bytes

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


def standard_send_sentence(out: kernels.KernelOutput) -> str:
    """What the standard send did here, small and large, in words computed from the run."""
    t = send_modes_table(out)
    small, large = (format_bytes(n, exact=True) for n in sorted(set(t.size_bytes)))
    s, l = waited(out, "standard", False), waited(out, "standard", True)
    word = {False: "returned at once (the library buffered it)", True: "waited until the receive was posted"}
    if s == l:
        return f"both the {small} and the {large} standard sends {word[s]}"
    return f"the {small} standard send {word[s]}, the {large} one {word[l]}"


def polls_sentence(polls: int) -> str:
    """What the non-blocking ring shift's MPI_Test count (the largest over ranks) shows."""
    if polls <= 1:
        return (
            "In this run every rank's message was there at its first `MPI_Test`: nothing was left "
            "to hide behind work, which a larger message or a slower link would change."
        )
    return (
        f"In this run a rank called `MPI_Test` up to {polls} times before its message was there: "
        "each of those calls is a moment a real code could have spent computing."
    )


def ssend_bsend_sentence(out: kernels.KernelOutput) -> str:
    """What the synchronous send of the small message and the buffered send of the large one
    did here, each with the reason the standard gives (or the surprise, if the run disagrees)."""
    ssend = (
        "The synchronous send of the small message waited for the receiver, although a few bytes "
        "could have been buffered"
        if waited(out, "synchronous", False)
        else "The synchronous send of the small message did *not* wait for the receiver here, "
        "which the standard does not allow: this run's timing is suspect"
    )
    bsend = (
        "the buffered send of the large message returned at once, because the program had given "
        "MPI the buffer to copy it into"
        if not waited(out, "buffered", True)
        else "the buffered send of the large message took more than half the receiver's delay, "
        "although the program had given MPI the buffer to copy it into: copying it was slow here"
    )
    return f"{ssend}; {bsend}."
