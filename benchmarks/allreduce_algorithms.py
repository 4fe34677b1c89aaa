"""Ring and Rabenseifner allreduce (kernels_c/collectives_algos.c) against MPI_Allreduce.

One run of the allreduce kernel per P times ring, rabenseifner, the butterfly and the library's
MPI_Allreduce at 8 B and 1 MiB with the repetitions interleaved (ring, rabenseifner, butterfly,
library, ring, ...), so a slow spell of the machine hits them all alike. Prints the median
times and each hand-written algorithm's ratio to the library (of the medians, of the minima,
and the worst-case range). Goal: within 1.3x of the library at 1 MiB for P = 2.

    python benchmarks/allreduce_algorithms.py [--np 2] [--repetitions 21] [--out FILE]
"""

from __future__ import annotations

import argparse

from benchreport import RATIO_HEADER, load_average, provenance, publish, ratio_cells, run

from commbook import mpi_env
from commbook.chapters import collectives as collectives_chapter

SIZES = {"8 B": 8, "1 MiB": 1 << 20}
HAND = ("ring", "rabenseifner", "butterfly-lh")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--np", default="2", help="comma list of process counts")
    ap.add_argument("--repetitions", type=int, default=21)
    ap.add_argument("--iterations", type=int, default=200, help="calls per repetition (8 B)")
    ap.add_argument("--out", help="also write the report to this file")
    args = ap.parse_args(argv)
    nps = [int(p) for p in args.np.split(",")]

    lines = provenance("allreduce_algorithms.py", argv) + [
        f"# repetitions: {args.repetitions}, interleaved {', '.join(HAND)}, library; time per "
        f"call = mean of back-to-back calls on the slowest rank; ratio = algorithm / library "
        f"of the medians; of minima = of the fastest repetitions",
        "",
        f"{'P':>2} {'size':>6} {'algorithm':>13} {'t us':>9} {'library us':>11} {RATIO_HEADER}",
    ]
    for P in nps:
        out = collectives_chapter.measure(
            "allreduce",
            ",".join(HAND) + ",library",
            np=P,
            sizes=",".join(str(s) for s in SIZES.values()),
            repetitions=args.repetitions,
            iterations=args.iterations,
        )
        table = collectives_chapter.tidy(out)
        for alg in HAND:
            ratios = collectives_chapter.ratio_table(table, alg, "library")
            for label, size in SIZES.items():
                r = ratios[ratios.size_bytes == size].iloc[0]
                lines.append(
                    f"{P:>2} {label:>6} {alg:>13} {r[f'{alg}_us']:>9.2f} {r['library_us']:>11.2f} {ratio_cells(r)}"
                )
        if P > mpi_env.cores():
            lines.append(f"   (P = {P} > {mpi_env.cores()} cores: ranks share cores, oversubscribed)")
    lines.append(f"# load average (1/5/15 min) at end {load_average()}")
    return publish(lines, args.out)


if __name__ == "__main__":
    run(main, "allreduce_algorithms")
