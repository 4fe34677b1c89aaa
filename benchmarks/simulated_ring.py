"""Wall and CPU time of the 48-rank ring on two simulated THIN nodes (SimGrid SMPI): the goal is
at most 10 s wall on a 2-core machine.

    python benchmarks/simulated_ring.py [--repeat 3] [--out benchmarks/results/simulated_ring.md]

Each timing is one `commbook simulate ring --platform orfeo-thin --nodes 2 --np 48 --map-by core`
as a child process with a fresh build cache (so the smpicc build is timed once, separately, and
no result comes from the cache), its options as written in the results file. CPU time is that of
the child processes (smpirun and its simulator), which the machine's other load does not inflate
the way it inflates wall time; the load average is recorded beside it.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = [
    ("simulate's default ring (10 iterations x 1 repetition, as the reference and validation)", []),
    ("100 rings (100 iterations x 1 repetition)", ["--iterations", "100"]),
]
BASE = ["simulate", "ring", "--platform", "orfeo-thin", "--nodes", "2", "--np", "48", "--map-by", "core"]


def timed(argv: list[str], env: dict) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "commbook.cli", *argv], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or "# result: ok" not in proc.stdout:
        raise SystemExit(f"commbook {' '.join(argv)} failed: {proc.stderr.strip()[-500:]}")
    line = next(l for l in proc.stdout.splitlines() if l.startswith("ring of"))
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), line


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    lines = [
        "# Simulated 48-rank ring on two THIN nodes (SimGrid SMPI)",
        "",
        f"command: `python benchmarks/simulated_ring.py --repeat {args.repeat}`; machine: {os.cpu_count()} cores, "
        f"load average at start {os.getloadavg()[0]:.2f}; date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        "",
        "| run | wall s (each) | CPU s (each) | result |",
        "|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "COMMBOOK_BUILD_DIR": cache}
        wall, cpu, _ = timed([*BASE, "--iterations", "1", "--repetitions", "1", "--np", "2"], env)
        lines.append(f"| smpicc build + a 2-rank ring | {wall:.1f} | {cpu:.1f} | (build, first run) |")
        for what, extra in CASES:
            walls, cpus = [], []
            for i in range(args.repeat):
                e = {**env, "COMMBOOK_BUILD_DIR": f"{cache}/r{what[:8]}{i}"}
                timed([*BASE, "--iterations", "1", "--repetitions", "1", "--np", "2"], e)  # build outside the timing
                w, c, line = timed([*BASE, *extra], e)
                walls.append(w)
                cpus.append(c)
            lines.append(
                f"| {what}: `commbook {' '.join(BASE + extra)}` | {', '.join(f'{w:.1f}' for w in walls)} | "
                f"{', '.join(f'{c:.1f}' for c in cpus)} | {line} |"
            )
    lines += ["", f"load average at the end {os.getloadavg()[0]:.2f}", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
