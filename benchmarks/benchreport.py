"""What the collective benchmark scripts share: the provenance lines that head a report, its
ending (printed, and written atomically with --out), and the exit on a kernel's failure.

The scripts run as ``python benchmarks/<script>.py``, so this folder is on sys.path."""

from __future__ import annotations

import shlex
import sys

from commbook import collective_runs as coll
from commbook import kernels, machine


def provenance(script: str, argv) -> list[str]:
    """The command (as typed), date and machine lines that head a report."""
    args = argv if argv is not None else sys.argv[1:]
    return machine.provenance(f"python benchmarks/{script} {' '.join(shlex.quote(a) for a in args)}")


def publish(lines: list[str], out: str | None) -> int:
    """Print the report and, with --out, write it atomically; the script's exit code."""
    report = "\n".join(lines)
    print(report)
    if out:
        from commbook.data import atomic_write_text

        atomic_write_text(out, report + "\n")
    return 0


def run(main, name: str) -> None:
    """Exit with main()'s code; a kernel or selection failure is one line on stderr and code 1."""
    try:
        sys.exit(main())
    except (kernels.KernelError, coll.SelectionError) as e:
        print(f"{name}: {e}", file=sys.stderr)
        sys.exit(1)


# One row of commbook.chapters.collectives.ratio_table: algorithm / library of the medians, of
# the minima, and the worst case (min against max and max against min over the repetitions).
RATIO_HEADER = f"{'ratio':>6} {'of minima':>9} {'worst-case range':>16}"


def ratio_cells(r) -> str:
    return f"{r.ratio:>6.2f} {r.ratio_of_minima:>9.2f} {r.ratio_low:>7.2f} - {r.ratio_high:<6.2f}"
