"""The topology page's simulated section: the book's allreduce.c (recursive doubling) on a
simulated torus and fat tree of P single-core nodes, beside the Hockney formula, which has no
topology. The page simulates nothing while it builds: each point is a run cached on this machine
or the shipped reference (`commbook simulate reference --kernel allreduce`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...models import collective_costs
from ...verdict import Verdict, cases

NETWORKS = ("torus", "fat-tree")
SIMULATED_NP = (64, 256, 1024)
SIZE = 1 << 20
OPTIONS = {"sizes": str(SIZE), "algorithm": "butterfly-lh", "iterations": 1, "repetitions": 1}


def simulated_allreduce(t_s: float, t_w: float, nps=SIMULATED_NP, networks=NETWORKS, options=None):
    """(table, runs): per network and P the simulated µs of one 1 MiB allreduce, the formula's
    log2(P) (t_s + n/t_w) and their ratio; the SimulatedRun of each point."""
    from ...simulate.cluster import SimulatedCluster

    rows, runs = [], []
    for net in networks:
        for P in nps:
            run = SimulatedCluster(net, P).run_cached("allreduce", options or OPTIONS, P)
            out = run.output.table
            t = float(out[out.algorithm == "butterfly-lh"].t_median_us.iloc[0])
            model = float(collective_costs.predict("allreduce", "recursive_doubling", P, SIZE, t_s, t_w))
            rows.append({"network": net, "P": P, "simulated_us": t, "formula_us": model, "ratio": t / model})
            runs.append(run)
    return pd.DataFrame(rows).round({"simulated_us": 1, "formula_us": 1, "ratio": 2}), runs


GROWTH = 0.10  # "grows": rises at every P and ends more than this fraction above its start


def _grows(ratios) -> bool:
    r = np.asarray(ratios, float)
    return bool((np.diff(r) > 0).all() and r[-1] > (1 + GROWTH) * r[0])


@cases("torus", "fat_tree", "both", "neither")
def gap_growth(table) -> Verdict:
    """Does simulated / formula grow with P on each network? Grows: rises at every P shown and
    ends more than 10 % above where it starts."""
    by = {net: g.sort_values("P") for net, g in table.groupby("network")}
    torus, fat = by["torus"], by["fat-tree"]
    grows = (_grows(torus.ratio), _grows(fat.ratio))
    case = {(True, False): "torus", (False, True): "fat_tree", (True, True): "both", (False, False): "neither"}
    numbers = {
        "p_first": int(torus.P.iloc[0]),
        "p_last": int(torus.P.iloc[-1]),
        "torus_first": float(torus.ratio.iloc[0]),
        "torus_last": float(torus.ratio.iloc[-1]),
        "fat_first": float(fat.ratio.iloc[0]),
        "fat_last": float(fat.ratio.iloc[-1]),
        "growth_pct": 100 * GROWTH,
    }
    return Verdict(case[grows], numbers)


@cases("live", "shipped", "all_shipped", "absent")
def simulated_source(runs, smpi_here: bool | None = None) -> Verdict:
    """Every point simulated on this machine (cached), or some (all_shipped: every one) from the
    shipped reference with SMPI here, or SMPI absent (smpi_here: None asks commbook.simulate)."""
    if smpi_here is None:
        from ...simulate import runner

        smpi_here = runner.status().ok
    shipped = [r for r in runs if r.reference]
    if not smpi_here:
        case = "absent"
    elif not shipped:
        case = "live"
    else:
        case = "all_shipped" if len(shipped) == len(runs) else "shipped"
    return Verdict(case, {"library": runs[0].library, "shipped": len(shipped), "points": len(runs)})
