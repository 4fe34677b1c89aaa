"""Scaling (book/scaling.md): speedup and efficiency, Amdahl and Gustafson, the ORFEO Jacobi
strong and weak runs, and the Jacobi kernel run at 1 and 2 processes on this machine."""

from __future__ import annotations

import numpy as np

from ...plotting import SERIES_COLORS, label_axes, measured, model_line

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


def plot_scaling(strong, weak, f: float, ax=None, title="Jacobi on ORFEO THIN nodes"):
    """Speedup against P: strong and weak runs as points, ideal, Amdahl and Gustafson as model lines."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
    P = np.arange(1, max(strong.np.max(), weak.np.max()) + 1)
    model_line(ax, P, P, label="ideal S = P", color="0.6", ls=":")
    model_line(ax, P, amdahl_speedup(f, P), label=f"Amdahl, f = {f:.4f} (model)", color="k")
    model_line(ax, P, gustafson_speedup(f, P), label=f"Gustafson, f = {f:.4f} (model)", color="k", ls="--")
    measured(ax, strong.np, strong.speedup, label="strong scaling (L = 1200, fixed)", color=SERIES_COLORS[0])
    measured(
        ax, weak.np, weak.speedup, label="weak scaling (work grows with P), scaled speedup", color=SERIES_COLORS[1]
    )
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


def local_verdict(speedup: float, weak_efficiency: float, load: str) -> str:
    """What the 2-process runs on this machine say, in words that follow the numbers."""
    busy = f"the 1-minute load average was {load} on this machine's cores"
    if speedup < 1:
        return (
            f"the second process made the sweep *slower*. {busy[0].upper() + busy[1:]}: where "
            "other work holds a core, a rank waits for it at every halo exchange, and its partner "
            "waits in turn. On machines of their own the processes of a Jacobi solver speed it up "
            "(the ORFEO runs above)."
        )
    if speedup < 1.8:
        far = "far from twice" if speedup < 1.6 else "less than twice"
        return (
            f"a second process helps, but {far}. {busy[0].upper() + busy[1:]}, and "
            "the two processes share one memory system: a stencil limited by memory bandwidth "
            "gains less from a second core than from a second node."
        )
    if speedup <= 2.2:
        return (
            "close to the ideal of two: the grid is large enough for the computation to outweigh "
            f"the halo exchange ({busy})."
        )
    return (
        "more than the ideal of two, which a fixed amount of work split in two reaches only when "
        f"each half uses the caches better than the whole did ({busy})."
    )
