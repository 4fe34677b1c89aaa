"""Scaling (book/scaling.md): speedup and efficiency, Amdahl and Gustafson, the ORFEO Jacobi
strong and weak runs, and the Jacobi kernel run at 1 and 2 processes on this machine (verdicts
worded in the page)."""

from __future__ import annotations

import numpy as np

from ...plotting import SERIES_COLORS, label_axes, measured, model_line
from ...verdict import Verdict, cases

ORFEO_JACOBI = "francesc0rtu/jacobi"  # the one ORFEO dataset with strong and weak runs


def amdahl_speedup(f, P):
    """Amdahl: the speedup of a fixed problem whose serial fraction is f."""
    f, P = np.asarray(f, float), np.asarray(P, float)
    if np.any((f < 0) | (f > 1)) or np.any(P < 1):
        raise ValueError("f must be in [0, 1] and P at least 1")
    return 1.0 / (f + (1.0 - f) / P)


def gustafson_speedup(f, P):
    """Gustafson: the scaled speedup when the parallel part grows with P (f: serial fraction of
    the time on P processes)."""
    f, P = np.asarray(f, float), np.asarray(P, float)
    if np.any((f < 0) | (f > 1)) or np.any(P < 1):
        raise ValueError("f must be in [0, 1] and P at least 1")
    return P - f * (P - 1.0)


def serial_fraction(speedup: float, P: int) -> float:
    """Amdahl's serial fraction that explains a measured speedup at P (Karp-Flatt metric)."""
    if P < 2 or speedup <= 0:
        raise ValueError("needs P >= 2 and a positive speedup")
    return (P / speedup - 1.0) / (P - 1.0)


def with_speedup(df, weak: bool = False):
    """Speedup and efficiency against the 1-process run. Strong: S = T1/TP, E = S/P. Weak (the
    work grows with P): E = T1/TP and the scaled speedup S = P E."""
    df = df.sort_values("np").reset_index(drop=True)
    t1 = float(df.loc[df.np == 1, "t_us"].iloc[0])
    ratio = t1 / df.t_us
    df["efficiency"] = ratio if weak else ratio / df.np
    df["speedup"] = ratio * df.np if weak else ratio
    return df


def orfeo_jacobi(machine: str = "orfeo-thin"):
    """(strong, weak) runs of the ORFEO Jacobi dataset on THIN nodes: one row per process count
    (mapped by core within a node, by node beyond one node's 24 cores)."""
    from ... import orfeo

    df = orfeo.load(ORFEO_JACOBI)[0]
    df = df[df.machine == machine].copy()
    df["variant"] = df.params.str.extract(r"variant=(\w+)", expand=False).fillna("strong")
    out = []
    for variant in ("strong", "weak"):
        v = df[df.variant == variant]
        rows = [
            g.sort_values("mapping", key=lambda m: m.map({"core": 0, "socket": 1, "node": 2})).iloc[0]
            for _, g in v.groupby("np")
        ]
        v = v.loc[[r.name for r in rows]] if rows else v
        out.append(with_speedup(v[["np", "mapping", "t_us", "source"]], weak=variant == "weak"))
    return tuple(out)


def fit_serial_fraction(strong) -> float:
    """The serial fraction of Amdahl's law closest to the strong-scaling speedups (least squares
    on 1/S, which is linear in f)."""
    P, S = strong.np.to_numpy(float), strong.speedup.to_numpy(float)
    keep = P > 1
    x, y = 1 - 1 / P[keep], 1 / S[keep] - 1 / P[keep]  # 1/S = 1/P + f (1 - 1/P)
    return float(np.clip(np.dot(x, y) / np.dot(x, x), 0, 1))


def fit_gustafson_fraction(weak) -> float:
    """The serial fraction of Gustafson's law (of the time on P processes) closest to the weak
    runs' scaled speedups: least squares on P - S = f (P - 1). Not Amdahl's f of the strong runs."""
    P, S = weak.np.to_numpy(float), weak.speedup.to_numpy(float)
    x, y = P - 1, P - S
    return float(np.clip(np.dot(x, y) / np.dot(x, x), 0, 1)) if np.dot(x, x) else 0.0


def plot_scaling(strong, weak, f: float, ax=None, title="Jacobi, ORFEO THIN"):
    """Speedup against P: strong and weak runs as points, ideal, Amdahl (f of the strong runs) and
    Gustafson (its own f, fitted on the weak runs) as model lines."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
    P = np.arange(1, max(strong.np.max(), weak.np.max()) + 1)
    f_g = fit_gustafson_fraction(weak)
    model_line(ax, P, P, label="ideal S = P", color="0.6", ls=":")
    model_line(ax, P, amdahl_speedup(f, P), label=f"Amdahl, f = {f:.4f} (model)", color="k")
    model_line(ax, P, gustafson_speedup(f_g, P), label=f"Gustafson, f = {f_g:.3f} (model)", color="k")
    measured(ax, strong.np, strong.speedup, label="strong scaling (L = 1200, fixed)", color=SERIES_COLORS[0])
    measured(ax, weak.np, weak.speedup, label="weak, scaled speedup", color=SERIES_COLORS[1])
    label_axes(ax, title, "processes P", "speedup", legend=True)
    return ax.figure


# ---- the Jacobi kernel on this machine


def local_runs(nps=(1, 2), L: int = 96, sweeps: int = 10):
    """Strong (the same L^3 cube) and weak (L^3 per rank) Jacobi runs on this machine: a table
    with np, variant, t_us (the median sweep of the slowest rank)."""
    import pandas as pd

    from ... import kernels

    rows = []
    for weak in (0, 1):
        for P in nps:
            out = kernels.run_mpiexec("jacobi3d", P, {"L": L, "sweeps": sweeps, "weak": weak}, timeout=600)
            rows.append(
                {"np": P, "variant": "weak" if weak else "strong", "t_us": float(out.table.t_median_us.iloc[0])}
            )
    return pd.DataFrame(rows)


def last_level_cache() -> tuple[int, int]:
    """This machine's last-level data cache: (bytes, how many CPUs share it), from sysfs;
    (0, 1) when it does not say."""
    from pathlib import Path

    best = (0, 0, 1)  # level, bytes, sharing CPUs
    for index in (Path("/sys/devices/system/cpu") / "cpu0" / "cache").glob("index*"):
        try:
            if (index / "type").read_text().strip() == "Instruction":
                continue
            level = int((index / "level").read_text())
            size = (index / "size").read_text().strip()
            size_bytes = int(size.rstrip("KMG")) * {"K": 1024, "M": 1 << 20, "G": 1 << 30}.get(size[-1], 1)
            shared = _count_cpus((index / "shared_cpu_list").read_text())
        except (OSError, ValueError):
            continue
        best = max(best, (level, size_bytes, shared))
    return best[1], best[2]


def _count_cpus(cpu_list: str) -> int:
    """How many CPUs a sysfs list such as "0-3,8" names."""
    n = 0
    for part in cpu_list.strip().split(","):
        lo, _, hi = part.partition("-")
        n += int(hi or lo) - int(lo) + 1
    return n


def grids_bytes(L: int, P: int = 1) -> float:
    """The two (L/P + 2) x (L + 2)^2 grids of jacobi3d.c's strong run on P ranks split along the
    first (slowest) dimension, halos included: one rank's share."""
    return 2 * (L / P + 2) * (L + 2) ** 2 * 8


E_BAND = 0.1  # "linear": E(2) within 1 +- E_BAND


@cases("below", "linear", "superlinear_cache", "superlinear", "superlinear_fits", "superlinear_no_llc")
def strong_here(t1_us: float, t2_us: float, L: int, llc: tuple[int, int] | None = None) -> Verdict:
    """E(2) from both strong rows (one and two processes on an L^3 grid): below 1 - E_BAND (two
    processes slower than one included), within E_BAND of 1, or above: superlinear, with a cache
    reason when the whole grids exceed the last-level cache and each rank's half fits the part of
    it that rank has (all of it, or 1/2 when two CPUs share it), without one when the half exceeds
    that part (`superlinear`), when the whole grids fit the cache already (`superlinear_fits`) or
    when the machine does not say its cache (`superlinear_no_llc`)."""
    if t1_us <= 0 or t2_us <= 0:
        raise ValueError(f"strong_here: times must be positive, got {t1_us} and {t2_us}")
    llc_bytes, sharing = llc if llc is not None else last_level_cache()
    per_rank = llc_bytes / min(max(sharing, 1), 2)
    S = t1_us / t2_us
    numbers = {
        "t1_ms": t1_us / 1e3,
        "t2_ms": t2_us / 1e3,
        "S": S,
        "E": S / 2,
        "grids_MB": grids_bytes(L) / 1e6,
        "half_MB": grids_bytes(L, 2) / 1e6,
        "llc_MB": llc_bytes / 1e6,
        "per_rank_MB": per_rank / 1e6,
        "band_pct": E_BAND * 100,
    }
    if S / 2 <= 1 + E_BAND:
        return Verdict("below" if S / 2 < 1 - E_BAND else "linear", numbers)
    if llc_bytes <= 0:
        return Verdict("superlinear_no_llc", numbers)
    if grids_bytes(L) <= llc_bytes:
        return Verdict("superlinear_fits", numbers)
    return Verdict("superlinear_cache" if grids_bytes(L, 2) <= per_rank else "superlinear", numbers)


@cases("held", "fell", "rose", "noisy")
def weak_here(t1_us: float, t2_us: float, t1_again_us: float | None = None) -> Verdict:
    """The weak rows (one L^3 grid per rank, one and two ranks): E = T(1)/T(2) within E_BAND of 1,
    below, or above. `t1_again_us` is the strong column's one-process run, the same run as the
    weak one's: `noisy` when E from it would fall in another of those three cases."""
    if t1_us <= 0 or t2_us <= 0 or (t1_again_us is not None and t1_again_us <= 0):
        raise ValueError(f"weak_here: times must be positive, got {t1_us}, {t2_us} and {t1_again_us}")

    def side(E):
        return "held" if abs(E - 1) <= E_BAND else "fell" if E < 1 else "rose"

    E = t1_us / t2_us
    again = t1_us if t1_again_us is None else t1_again_us
    numbers = {
        "E": E,
        "E_again": again / t2_us,
        "ones_pct": (max(t1_us, again) / min(t1_us, again) - 1) * 100,
        "t1_ms": t1_us / 1e3,
        "t2_ms": t2_us / 1e3,
    }
    return Verdict("noisy" if side(again / t2_us) != side(E) else side(E), numbers)
