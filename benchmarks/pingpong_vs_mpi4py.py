"""Our ping-pong kernel against `python -m mpi4py.bench pingpong`, on the same machine, in one
interleaved run (the two alternate, so a change in machine load hits both alike).

    python benchmarks/pingpong_vs_mpi4py.py [--rounds 5]      (or: make benchmark)

Figures: latency at 8 B and bandwidth at 4 MiB, with the ratio ours / mpi4py.bench.
Allocation matters at 4 MiB: numpy (mpi4py.bench's default) asks for transparent huge pages on
large arrays, a plain bytearray does not. So the 4 MiB rows compare like with like: our kernel
with --hugepages 1 against numpy arrays, and our default page-aligned buffers against bytearray
(`-a none`). mpi4py.bench times every round trip separately and reports the mean; our kernel
times batches and reports the median of repetitions: both are printed as half round trips.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys

from commbook import kernels, machine

SMALL, LARGE = 8, 4 * 2**20


def ours(size: int, hugepages: int) -> float:
    out = kernels.run_mpiexec(
        "pingpong", 2, {"sizes": f"{size}:{size}", "repetitions": 5, "hugepages": hugepages, "validate": 0}
    )
    return float(out.table["t_median_us"].iloc[0])


def mpi4py_bench(size: int, array: str) -> float:
    loop = "10000" if size <= 1024 else "100"
    proc = kernels.mpiexec_raw(
        2,
        [
            sys.executable,
            "-m",
            "mpi4py.bench",
            "pingpong",
            "-m",
            str(size),
            "-n",
            str(size),
            "-l",
            loop,
            "--loop-large",
            loop,
            "-a",
            array,
        ],
        timeout=300,
    )
    m = re.search(rf"^\s*{size}\s+\S+\s+\|\s+(\S+)", proc.stdout, re.M)
    if proc.returncode or not m:
        raise SystemExit(f"mpi4py.bench failed:\n{proc.stdout}\n{proc.stderr}")
    return float(m.group(1)) * 1e6


CASES = [  # (label, size, ours' hugepages, mpi4py.bench array)
    ("latency 8 B", SMALL, 0, "none"),
    ("bandwidth 4 MiB, no huge pages (ours default | bytearray)", LARGE, 0, "none"),
    ("bandwidth 4 MiB, huge pages (ours --hugepages 1 | numpy)", LARGE, 1, "numpy"),
]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    print("\n".join(machine.provenance(f"python benchmarks/pingpong_vs_mpi4py.py --rounds {args.rounds}")))
    print(f"# transparent huge pages: {machine.transparent_hugepages()}")
    results = {c[0]: ([], []) for c in CASES}
    for r in range(args.rounds):
        for label, size, huge, array in CASES:
            a, b = results[label]
            a.append(ours(size, huge))
            b.append(mpi4py_bench(size, array))
        print(f"# round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print(f"{'case':62s} {'ours':>12s} {'mpi4py.bench':>13s} {'ratio':>7s}")
    for label, size, _, _ in CASES:
        a, b = (statistics.median(v) for v in results[label])
        if size == SMALL:
            print(f"{label:62s} {a:9.3f} us {b:10.3f} us {a / b:7.2f}   (time: < 1 is faster)")
        else:
            bwa, bwb = size / a, size / b
            print(f"{label:62s} {bwa:7.0f} MB/s {bwb:8.0f} MB/s {bwa / bwb:7.2f}   (bandwidth: > 1 is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
