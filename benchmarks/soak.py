"""Soak: many consecutive short kernel runs on one MPICluster, an engine killed every 50 runs.

    python benchmarks/soak.py [--runs 200] [--kill-every 50] [--out benchmarks/results/soak.txt]

Every `--kill-every` runs, one extra run of the deadlock example is started and an engine is
SIGKILLed while it hangs: that run must fail with the "engine died" error, and the next run
must restart the cluster by itself. At the end every run is accounted for (ok, failed as
expected, or unexpected) and every process ever seen in the cluster's tree must be gone.
Not a test: it records what happened, with the load average, in the output file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from commbook import kernels
from commbook.cluster import MPICluster


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--kill-every", type=int, default=50)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "soak.txt"))
    args = ap.parse_args()
    os.environ.setdefault("IPYTHONDIR", tempfile.mkdtemp(prefix="commbook-soak-"))

    seen: dict[tuple[int, float], psutil.Process] = {}

    def record(cluster):
        for pid in cluster.pids():
            try:
                p = psutil.Process(pid)
                seen.setdefault((pid, p.create_time()), p)
            except psutil.Error:
                pass

    load0 = os.getloadavg()
    ok, expected_failures, unexpected, restarts, times = 0, 0, [], 0, []
    t_start = time.perf_counter()
    cluster = MPICluster(n=args.np)
    cluster.start()
    record(cluster)
    try:
        for i in range(1, args.runs + 1):
            if i > 1 and (i - 1) % args.kill_every == 0:
                victim = cluster._engine_pids[-1]
                killer = threading.Timer(1.0, lambda pid=victim: psutil.Process(pid).kill())
                killer.start()
                try:
                    cluster.run("examples/deadlock", timeout=120)
                    unexpected.append(f"deadlock before run {i} returned")
                except kernels.KernelFailed as e:
                    if "engine died during the run" in str(e):
                        expected_failures += 1
                    else:
                        unexpected.append(f"deadlock before run {i}: {e}")
                except Exception as e:  # noqa: BLE001 - accounted for, reported below
                    unexpected.append(f"deadlock before run {i}: {type(e).__name__}: {e}")
                killer.join()
            was_running = cluster.running
            t0 = time.perf_counter()
            try:
                out = cluster.run("pingpong", {"sizes": "0:1K", "repetitions": 2, "iterations": 100}, timeout=120)
                ok += out.ok
                if not out.ok:
                    unexpected.append(f"run {i}: result {out.result}")
            except Exception as e:  # noqa: BLE001
                unexpected.append(f"run {i}: {type(e).__name__}: {e}")
            dt = time.perf_counter() - t0
            if not was_running:
                restarts += 1
            else:
                times.append(dt)
            record(cluster)
    finally:
        record(cluster)
        cluster.stop()
    total = time.perf_counter() - t_start
    time.sleep(2)
    left = []
    for p in seen.values():
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{p.pid} {p.name()}")
        except psutil.Error:
            pass
    load1 = os.getloadavg()
    kills = (args.runs - 1) // args.kill_every
    lines = [
        "commbook soak benchmark",
        f"command: python benchmarks/soak.py --runs {args.runs} --kill-every {args.kill_every} --np {args.np}",
        f"date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}",
        f"machine: {os.uname().nodename}, {os.cpu_count()} CPUs; load average before "
        f"{load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}",
        f"pingpong runs (sizes 0:1K, 2 repetitions): {args.runs}; ok {ok}",
        f"engine kills during a hung run: {kills}; failed with 'engine died' as expected: {expected_failures}",
        f"runs that restarted the cluster by themselves: {restarts}",
        f"unexpected outcomes: {len(unexpected)}",
        *[f"  {u}" for u in unexpected[:20]],
        f"all runs accounted for: {ok + len([u for u in unexpected if u.startswith('run')]) == args.runs}",
        f"time per run on a running cluster: median {statistics.median(times) * 1e3:.0f} ms, "
        f"max {max(times) * 1e3:.0f} ms"
        if times
        else "no timed runs",
        f"total {total:.0f} s",
        f"processes seen in the cluster's trees: {len(seen)}; still alive after stop: {len(left)}",
        *[f"  {x}" for x in left],
    ]
    text = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    good = ok == args.runs and expected_failures == kills and not unexpected and not left and restarts == kills
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
