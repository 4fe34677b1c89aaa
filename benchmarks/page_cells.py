"""Where a page's execution time goes: each page run alone, as the book build runs it (its
environment, nbclient, the 900 s cell limit), then its ten slowest cells.

    python benchmarks/page_cells.py PAGE... > benchmarks/results/page_cells.txt

Run it on an otherwise idle machine: the MPI pages measure. The sum over the MPI pages is the
floor of a cold `make book` (they run one after the other); see results/book_build.md.
"""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

from nbclient import NotebookClient

from commbook.execution.environment import execution_environment
from commbook.execution.reading import read_page

ROOT = Path(__file__).resolve().parents[1]


def _time(stamp: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def cell_seconds(nb) -> list[tuple[float, int, str]]:
    """(seconds, index, the cell's first lines) of every executed code cell."""
    rows = []
    for i, cell in enumerate(nb.cells):
        ex = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in ex and "shell.execute_reply" in ex:
            took = (_time(ex["shell.execute_reply"]) - _time(ex["iopub.execute_input"])).total_seconds()
            rows.append((took, i, cell.source[:90].replace("\n", " | ")))
    return rows


def main(pages: list[str]) -> None:
    os.environ.update(execution_environment(os.environ))
    total = 0.0
    for page in pages:
        path = ROOT / "book" / f"{page}.md"
        nb = read_page(path)
        t0 = datetime.datetime.now()
        client = NotebookClient(nb, timeout=900, resources={"metadata": {"path": str(path.parent)}})
        client.execute()
        wall = (datetime.datetime.now() - t0).total_seconds()
        total += wall
        rows = cell_seconds(nb)
        print(f"== {page}: wall {wall:.1f} s, cells {sum(r[0] for r in rows):.1f} s")
        for took, i, src in sorted(rows, reverse=True)[:10]:
            print(f"  {took:6.1f}  [{i}] {src}")
        sys.stdout.flush()
    print(f"== {len(pages)} pages: {total:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
