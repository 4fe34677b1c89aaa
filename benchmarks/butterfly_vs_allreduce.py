"""Butterfly (recursive doubling, kernels_c/allreduce.c) against the library's MPI_Allreduce.

For P = 2 and 4, one run of the allreduce kernel per P times both at 8 B and 1 MiB with the
repetitions interleaved (butterfly, library, butterfly, library, ...), so a slow spell of the
machine hits both alike. Prints median times, the ratio butterfly / library with its range
(min/max against max/min over the repetitions), and, from a separate untimed run with Open MPI's
message counters, which messages the library's own allreduce sent: that is what explains the
ratio.

    python benchmarks/butterfly_vs_allreduce.py [--repetitions 15] [--out FILE]
"""

from __future__ import annotations

import argparse

from benchreport import RATIO_HEADER, provenance, publish, ratio_cells, run

from commbook import collective_runs as coll
from commbook import mpi_env
from commbook.chapters import collectives as collectives_chapter

SIZES = {"8 B": 8, "1 MiB": 1 << 20}


def library_pattern(P: int, size: int) -> str:
    """Messages the library's allreduce sent in one call (Open MPI pml monitoring)."""
    if not mpi_env.detect().family.counts_messages:
        return "(message counts need Open MPI)"
    out = collectives_chapter.measure(
        "allreduce", "library", np=P, sizes=str(size), repetitions=1, iterations=1, monitor=True
    )
    m = coll.parse_messages(out)
    m = m[m["count"] > 0]
    per_pair = ", ".join(f"{r.src}->{r.dst}" + (f"x{r.count}" if r.count > 1 else "") for r in m.itertuples())
    total = int(m["bytes"].sum())
    return f"{len(m)} pairs, {int(m['count'].sum())} messages, {total / size:.2f} x n bytes: {per_pair}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repetitions", type=int, default=15)
    ap.add_argument("--iterations", type=int, default=200, help="calls per repetition (8 B)")
    ap.add_argument("--out", help="also write the report to this file")
    args = ap.parse_args(argv)

    lines = provenance("butterfly_vs_allreduce.py", argv) + [
        f"# repetitions: {args.repetitions}, interleaved butterfly/library; time per call = "
        f"mean of back-to-back calls on the slowest rank; ratio = butterfly / library of "
        f"the medians; of minima = of the fastest repetitions",
        "",
        f"{'P':>2} {'size':>6} {'butterfly us':>13} {'library us':>11} {RATIO_HEADER}",
    ]
    patterns = []
    for P in (2, 4):
        out = collectives_chapter.measure(
            "allreduce",
            "butterfly-lh,library",
            np=P,
            sizes=",".join(str(s) for s in SIZES.values()),
            repetitions=args.repetitions,
            iterations=args.iterations,
        )
        table = collectives_chapter.tidy(out)
        ratios = collectives_chapter.ratio_table(table, "butterfly-lh", "library")
        for label, size in SIZES.items():
            r = ratios[ratios.size_bytes == size].iloc[0]
            lines.append(f"{P:>2} {label:>6} {r['butterfly-lh_us']:>13.2f} {r['library_us']:>11.2f} {ratio_cells(r)}")
            patterns.append(f"P={P} {label}: library sent {library_pattern(P, size)}")
        if P > mpi_env.cores():
            lines.append(f"   (P = {P} > {mpi_env.cores()} cores: ranks share cores)")
    lines += ["", "# what the library's MPI_Allreduce sent in one call (untimed run):"]
    lines += [f"#   {p}" for p in patterns]
    lines.append(
        f"# butterfly sends log2(P) messages of n bytes per rank: "
        f"{', '.join(f'P={P}: {P.bit_length() - 1} x n' for P in (2, 4))}"
    )
    return publish(lines, args.out)


if __name__ == "__main__":
    run(main, "butterfly_vs_allreduce")
