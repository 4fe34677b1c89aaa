"""Wall time, CPU time and memory of the topology page's simulated allreduce (SimGrid SMPI): the
book's allreduce.c, recursive doubling of one 1 MiB vector, on a torus and a fat tree of P
single-core nodes, each run as `commbook simulate reference --kernel allreduce` makes it.

    python benchmarks/simulated_allreduce_topology.py [--nps 64 256 1024] [--out benchmarks/results/simulated_allreduce_topology.md]

Each timing is one `commbook simulate allreduce --platform NET --nodes P --np P ...` as a child
process with a fresh build cache (the smpicc build is timed once, separately; no result comes
from the cache). CPU time and peak memory are the child processes' (smpirun's simulator runs
every rank as a thread of one process, so its memory grows with P); the load average is recorded.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

from benchreport import provenance, publish

from commbook.chapters.topology import simulated
from commbook.kernels import kernel_args


def timed(argv: list[str], env: dict) -> tuple[float, float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "commbook.cli", *argv], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or "# result: ok" not in proc.stdout:
        raise SystemExit(f"commbook {' '.join(argv)} failed: {proc.stderr.strip()[-500:]}")
    row = next(l for l in proc.stdout.splitlines() if l.strip().startswith("butterfly-lh"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024, row.split()[-2]  # peak RSS of any child so far, MiB


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nps", type=int, nargs="+", default=list(simulated.SIMULATED_NP))
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    options = kernel_args(simulated.OPTIONS)
    lines = provenance("simulated_allreduce_topology.py", argv) + [
        "",
        "# Simulated allreduce on a torus and a fat tree (SimGrid SMPI), the topology page's runs",
        "",
        f"kernel options `{' '.join(options)}`",
        "",
        "| network | P | wall s | CPU s | peak RSS so far (MiB) | simulated µs (t_median) |",
        "|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "COMMBOOK_BUILD_DIR": cache}
        base = ["simulate", "allreduce", "--np", "8", "--nodes", "8", *options]
        wall, cpu, _, _ = timed([*base, "--platform", "torus"], env)
        lines.append(f"| smpicc build + an 8-node torus | 8 | {wall:.1f} | {cpu:.1f} | | |")
        for net in simulated.NETWORKS:
            for P in args.nps:
                argv = ["simulate", "allreduce", "--platform", net, "--nodes", str(P), "--np", str(P), *options]
                wall, cpu, rss, t = timed(argv, env)
                lines.append(f"| {net} | {P} | {wall:.1f} | {cpu:.1f} | {rss:.0f} | {t} |")
                print(lines[-1], file=sys.stderr, flush=True)
    lines += ["", f"load average at the end {os.getloadavg()[0]:.2f}"]
    return publish(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
