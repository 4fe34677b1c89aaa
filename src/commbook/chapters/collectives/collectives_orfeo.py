"""Collectives III (book/collectives_orfeo.md): ORFEO's broadcast and gather against the
link-class models, and the verdicts the page words from the data and the models (case keys and
numbers; the sentences are in the page)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...verdict import Verdict, cases
from . import common as chapter


def _runs(values, grid=None) -> str:
    """Sorted process counts as ranges of consecutive ones on the grid of P measured (default:
    the values themselves): '2-4, 10, 18-24' for an even grid."""
    values = sorted(int(v) for v in values)
    if not values:
        return "none"
    points = sorted(int(v) for v in (values if grid is None else grid))
    step = min((b - a for a, b in zip(points, points[1:])), default=1) or 1
    out, start, prev = [], values[0], values[0]
    for v in values[1:] + [None]:
        if v is not None and v - prev == step:
            prev = v
            continue
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(out)


def model_table(measured: pd.DataFrame, n: int, algorithms, params: dict) -> pd.DataFrame:
    """Measured (OSU mean over ranks) and link-class model of the mean over ranks, per P, for
    the broadcast algorithms as ORFEO spells them: columns '<alg>' and '<alg> model'."""
    meas = measured[measured.size_bytes == n].pivot_table(index="np", columns="algorithm", values="t_us")
    nps = sorted(meas.index)
    out = {}
    for alg in algorithms:
        model = chapter.orfeo_predictions("bcast", [alg], nps, n, params=params, statistic="mean")
        out[f"{alg} model"] = model.set_index("np").t_us
        if alg in meas:
            out[alg] = meas[alg]
    return pd.DataFrame(out)


def factor(a, b) -> float:
    """How far apart two positive times are: max(a/b, b/a)."""
    return float(max(a / b, b / a))


BAND = 0.25  # two calibrations within 25 % of each other "agree"
CLASSES = ("core", "socket", "node")


@cases("both_agree", "latencies_agree", "bandwidths_agree", "neither")
def calibration(params: dict, pingpong: dict, band: float = BAND) -> Verdict:
    """The P = 2 osu_bcast calibration against the IMB ping-pong's, over the three link classes:
    the largest latency factor, the bandwidth ratios (osu_bcast / IMB) at both ends."""
    lat = {c: factor(params[c][0], pingpong[c][0]) for c in CLASSES}
    bw = {c: params[c][1] / pingpong[c][1] for c in CLASSES}
    lat_ok = max(lat.values()) <= 1 + band
    bw_ok = max(factor(r, 1) for r in bw.values()) <= 1 + band
    case = {(True, True): "both_agree", (True, False): "latencies_agree", (False, True): "bandwidths_agree"}
    lo, hi = min(bw, key=bw.get), max(bw, key=bw.get)
    return Verdict(
        case.get((lat_ok, bw_ok), "neither"),
        {
            "lat_pct": 100 * (max(lat.values()) - 1),
            "bw_min": bw[lo],
            "bw_min_class": lo,
            "bw_max": bw[hi],
            "bw_max_class": hi,
            "band_pct": 100 * band,
        },
    )


@cases("within_two", "beyond_two")
def small_trees(measured: pd.DataFrame, params: dict, n: int = 1, table_P=(24, 48)) -> Verdict:
    """At n bytes, the factor between measured and the model of the mean over ranks for the
    binary tree and the four chains at every P: the worst (where, which) and the table's rows."""
    t = model_table(measured, n, ["binary_tree", "chain"], params).dropna()
    f = pd.DataFrame({a: np.maximum(t[a] / t[f"{a} model"], t[f"{a} model"] / t[a]) for a in ("binary_tree", "chain")})
    worst_alg = f.max().idxmax()
    worst_P = int(f[worst_alg].idxmax())
    numbers = {
        "worst": float(f[worst_alg].max()),
        "worst_alg": worst_alg.replace("_", " "),
        "worst_P": worst_P,
        "P_first": int(f.index.min()),
        "P_last": int(f.index.max()),
    }
    for P in table_P:
        numbers[f"at_{P}"] = float(f.loc[P].max())
    return Verdict("within_two" if numbers["worst"] <= 2 else "beyond_two", numbers)


@cases("four", "one", "split")
def chains(measured: pd.DataFrame, params: dict, n: int) -> Verdict:
    """Which chain model (Open MPI's four chains or the single chain) is closer, on a log scale,
    to the measured "chain" at n bytes, at every P where the two models differ: the P ranges of
    each, and where they are the same (up to P = 5 the four chains are single hops from the
    root, which the model prices as one chain of P - 1 hops: no P there favours either)."""
    t = model_table(measured, n, ["chain", "one chain"], params).dropna()
    four = np.abs(np.log(t["chain model"] / t["chain"]))
    one = np.abs(np.log(t["one chain model"] / t["chain"]))
    same = np.isclose(t["chain model"], t["one chain model"], rtol=1e-9, atol=0.0)
    four_at, one_at = t.index[(four < one) & ~same], t.index[(four >= one) & ~same]
    case = "split" if len(four_at) and len(one_at) else "four" if len(four_at) else "one"
    numbers = {"four_at": _runs(four_at, t.index), "one_at": _runs(one_at, t.index)}
    return Verdict(case, numbers | {"same_at": _runs(t.index[same], t.index)})


@cases("below", "above", "crosses")
def linear(measured: pd.DataFrame, params: dict, n: int = 1) -> Verdict:
    """The linear broadcast at n bytes: measured over the model of the mean over ranks, at every
    P: its range (and where) and where it is above 1."""
    t = model_table(measured, n, ["basic_linear"], params).dropna()
    r = t["basic_linear"] / t["basic_linear model"]
    above = r.index[r > 1]
    case = "above" if len(above) == len(r) else "below" if not len(above) else "crosses"
    return Verdict(
        case,
        {
            "ratio_min": float(r.min()),
            "P_min": int(r.idxmin()),
            "ratio_max": float(r.max()),
            "P_max": int(r.idxmax()),
            "above_at": _runs(above, r.index),
            "ratio_last": float(r.iloc[-1]),
            "P_first": int(r.index.min()),
            "P_last": int(r.index.max()),
        },
    )


LARGE_ALGORITHMS = ("basic_linear", "chain", "binary_tree")


@cases("mostly_above", "mostly_below")
def large(measured: pd.DataFrame, params: dict, n: int = 1 << 20) -> Verdict:
    """At n bytes, measured over model for the linear broadcast, the four chains and the binary
    tree at every P: the share of rows above the model, the largest ratio (which, where) and,
    per algorithm, the P where it is at or below the model."""
    t = model_table(measured, n, list(LARGE_ALGORITHMS), params).dropna()
    r = pd.DataFrame({a: t[a] / t[f"{a} model"] for a in LARGE_ALGORITHMS})
    worst = r.max().idxmax()
    share = float((r > 1).to_numpy().mean())
    numbers = {
        "share_above": share,
        "ratio_max": float(r[worst].max()),
        "worst_alg": worst.replace("_", " "),
        "worst_P": int(r[worst].idxmax()),
        "P_first": int(r.index.min()),
        "P_last": int(r.index.max()),
    }
    for a in LARGE_ALGORITHMS:
        numbers[f"{a}_below_at"] = _runs(r.index[r[a] <= 1], r.index)
    return Verdict("mostly_above" if share >= 0.5 else "mostly_below", numbers)


@cases("above_all", "not_above_all")
def critical_path(check: pd.DataFrame) -> Verdict:
    """The binomial gather's table (rows P; columns measured, eq. 3, critical path): both models
    over the measured mean at the largest P, and whether the critical path is above it at every P."""
    over = check.iloc[:, 1:].div(check.iloc[:, 0], axis=0)
    last = check.index.max()
    cp = over.iloc[:, 1]
    return Verdict(
        "above_all" if (cp > 1).all() else "not_above_all",
        {
            "eq3_over": float(over.loc[last].iloc[0]),
            "cp_over": float(cp.loc[last]),
            "cp_over_min": float(cp.min()),
            "P_last": int(last),
        },
    )
