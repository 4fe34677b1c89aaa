"""Where the suite's and the book's seconds went, before and after the cuts of issue 33.

    COMMBOOK_ORFEO_MIRROR=../shared/orfeo python benchmarks/suite_speed.py [--curves 20] [--cluster]
        [--out benchmarks/results/suite_speed]

1. The piecewise fit's breakpoint search on ORFEO ping-pong curves: every candidate segment fitted
   at once (commbook.fit.relative_error._soft_l1_params_weighted) against one scipy least_squares
   per segment (_segment_rss, the path the other losses still take); same optimum (the largest
   relative excess of the loss is printed).
2. A 300-resample bootstrap: all refits at once against one scipy fit per resample.
3. Imports of nbformat and altair in a fresh interpreter (etc/uv-overrides.txt leaves out the
   rfc3987-syntax grammars jsonschema compiled on import); a chapter kernel's imports with the
   venv's bytecode and without any (the Makefile's uv --compile-bytecode).
4. With --cluster: MPICluster(n=2) start and stop (the hub's heartbeat, the zombie wait).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from benchreport import provenance, publish


def _piecewise(lines, n_curves: int) -> None:
    from commbook.fit.piecewise import _segment_rss
    from commbook.fit.relative_error import DEFAULT_F_SCALE, MAX_BANDWIDTH_MBPS, _soft_l1_params_many
    from commbook.validate.pingpong_splits import pingpong_curves

    curves = [c for c in pingpong_curves() if c["n"].size >= 6]
    curves = curves[:: max(1, len(curves) // n_curves)][:n_curves]
    batched = one_by_one = 0.0
    worst = 0.0
    for c in curves:
        n, t = c["n"], c["t"]
        ranges = [(i, j) for i in range(n.size) for j in range(i + 2, n.size + 1)]
        t0 = time.perf_counter()
        lam, beta = _soft_l1_params_many(n, t, ranges)
        t1 = time.perf_counter()
        rss_old = [_segment_rss(n[a:b], t[a:b], "soft_l1", DEFAULT_F_SCALE, MAX_BANDWIDTH_MBPS) for a, b in ranges]
        t2 = time.perf_counter()
        batched, one_by_one = batched + t1 - t0, one_by_one + t2 - t1
        rss_new = [np.sum(((la + be * n[a:b]) / t[a:b] - 1) ** 2) for (a, b), la, be in zip(ranges, lam, beta)]
        worst = max(worst, max(abs(x - y) / (y + 1e-12) for x, y in zip(rss_new, rss_old)))
    lines.append(
        f"piecewise search, {len(curves)} ORFEO curves: all segments at once {batched:.2f} s, "
        f"one scipy fit per segment {one_by_one:.2f} s ({one_by_one / batched:.0f}x); "
        f"largest relative difference of a segment's squared residual {worst:.1e}"
    )


def _bootstrap(lines) -> None:
    from commbook.fit import bootstrap
    from commbook.fit.relative_error import _fit_params

    rng = np.random.default_rng(1)
    n = 2.0 ** np.arange(0, 26)
    t = (0.3 + n / 9000) * (1 + 0.1 * rng.standard_normal(n.size)).clip(0.5)
    t0 = time.perf_counter()
    bootstrap.bootstrap_ci(n, t, n_boot=300)
    t1 = time.perf_counter()
    draws = np.random.default_rng(0)
    for _ in range(300):
        idx = draws.integers(0, n.size, n.size)
        if np.unique(n[idx]).size >= 2:
            _fit_params(n[idx], t[idx])
    t2 = time.perf_counter()
    lines.append(f"bootstrap, 300 resamples of 26 points: at once {t1 - t0:.3f} s, one scipy fit each {t2 - t1:.2f} s")


def _imports(lines) -> None:
    import importlib.util

    if importlib.util.find_spec("rfc3987_syntax") is None:
        lines.append("rfc3987_syntax: not installed (etc/uv-overrides.txt)")
    else:
        lines.append("rfc3987_syntax: installed (a venv made before etc/uv-overrides.txt): its import is in these")
    for module in ("nbformat", "altair"):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
        lines.append(f"import {module} in a fresh interpreter: {time.perf_counter() - t0:.2f} s")
    # What a chapter's kernel imports, with the venv's bytecode (the Makefile's uv
    # --compile-bytecode) and without any: an empty PYTHONPYCACHEPREFIX hides every .pyc and
    # PYTHONDONTWRITEBYTECODE keeps it empty, as on a machine that sets it with a venv uv made.
    kernel = "import pandas, matplotlib.pyplot, scipy.optimize, ipyparallel, commbook.cluster"
    with tempfile.TemporaryDirectory() as empty:
        for label, env in (
            ("with the venv's bytecode", {}),
            ("without bytecode", {"PYTHONPYCACHEPREFIX": empty, "PYTHONDONTWRITEBYTECODE": "1"}),
        ):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", kernel], check=True, env={**os.environ, **env})
            lines.append(f"a chapter kernel's imports ({kernel[7:]}), {label}: {time.perf_counter() - t0:.2f} s")


def _cluster(lines) -> None:
    from commbook.cluster import MPICluster

    for _ in range(2):
        t0 = time.perf_counter()
        cluster = MPICluster(n=2).start()
        t1 = time.perf_counter()
        cluster.stop()
        lines.append(f"MPICluster(n=2): start {t1 - t0:.1f} s, stop {time.perf_counter() - t1:.1f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--curves", type=int, default=20)
    ap.add_argument("--cluster", action="store_true", help="also time an MPI cluster's start and stop")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    lines = provenance("suite_speed.py", argv)
    _piecewise(lines, args.curves)
    _bootstrap(lines)
    _imports(lines)
    if args.cluster:
        _cluster(lines)
    return publish(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
