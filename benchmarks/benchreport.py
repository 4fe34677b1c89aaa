"""What the benchmark scripts share: the provenance lines that head a report, its ending
(printed, and written atomically with --out), the exit on a kernel's failure, and the options
and page list of the scripts that read a built book.

The scripts run as ``python benchmarks/<script>.py``, so this folder is on sys.path."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

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


def built_book_parser(doc: str) -> argparse.ArgumentParser:
    """The options of a script that reads a built book: --html, --toc, --out."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--html", type=Path, default=Path("_build/html"))
    ap.add_argument("--toc", type=Path, default=Path("_toc.yml"))
    ap.add_argument("--out", help="also write the report to this file")
    return ap


def toc_pages(toc: Path) -> list[str]:
    """The pages of a table of contents, in its order (an older commit's too)."""
    import yaml

    from commbook.pages import section_files

    data = yaml.safe_load(toc.read_text())
    pages = [data["root"]]
    for part in data.get("parts", [{"chapters": data.get("chapters", [])}]):
        pages += [f for c in part["chapters"] for f in [c["file"], *section_files(c)]]
    return pages


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
