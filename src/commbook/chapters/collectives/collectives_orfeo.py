"""Collectives III (book/collectives_orfeo.md): ORFEO's broadcast and gather against the
link-class models, and the verdicts its prose takes from the data and the models."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import common as chapter


def _runs(values) -> str:
    """Sorted process counts as ranges of consecutive even (or whole) numbers: '2-4, 10, 18-24'."""
    values = sorted(int(v) for v in values)
    if not values:
        return "none"
    step = min((b - a for a, b in zip(values, values[1:])), default=1) or 1
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


def chain_verdict(measured: pd.DataFrame, params: dict, sizes=(1, 1 << 20)) -> str:
    """Which chain model (Open MPI's four chains or the single chain) is closer, on a log scale,
    to the measured "chain" at each P, per size: a sentence for the page."""
    parts = []
    for n in sizes:
        t = model_table(measured, n, ["chain", "one chain"], params).dropna()
        four = np.abs(np.log(t["chain model"] / t["chain"]))
        one = np.abs(np.log(t["one chain model"] / t["chain"]))
        four_at, one_at = t.index[four < one], t.index[four >= one]
        label = f"{n} B" if n < 1024 else f"{n >> 20} MiB"
        if len(one_at) == 0:
            parts.append(f"at {label} the four-chain model is the closer one at every P")
        elif len(four_at) == 0:
            parts.append(f"at {label} the single-chain model is the closer one at every P")
        else:
            parts.append(
                f"at {label} the four-chain model is the closer one at P = "
                f"{_runs(four_at)}, the single chain at P = {_runs(one_at)}"
            )
    return "; ".join(parts)


def factor(a, b) -> float:
    """How far apart two positive times are: max(a/b, b/a)."""
    return float(max(a / b, b / a))


def tree_factors(measured: pd.DataFrame, params: dict, n: int = 1, nps=(24, 48)) -> dict:
    """{P: the largest factor between measured and model over the binary tree and the four
    chains} at size n."""
    t = model_table(measured, n, ["binary_tree", "chain"], params)
    return {P: max(factor(t.loc[P, a], t.loc[P, f"{a} model"]) for a in ("binary_tree", "chain")) for P in nps}


def small_tree_words(f: dict) -> str:
    lo, hi = min(f), max(f)
    worst = max(f.values())
    within = "within a factor of two" if worst <= 2 else f"within a factor {worst:.1f}"
    closer = "closer at" if f[hi] < f[lo] else "no closer at"
    return (
        f"The binary tree and the four chains come {within} of the model of the mean over "
        f"ranks at P = {lo} and {hi} ({closer} P = {hi} than at {lo}: factors "
        f"{f[lo]:.2f} and {f[hi]:.2f})"
    )


def linear_words(ratio_1b: float) -> str:
    """The linear broadcast at 1 B and P = 48: measured / model."""
    if ratio_1b < 0.9:
        return f"**The linear broadcast at 1 B is cheaper than the model** (measured / model {ratio_1b:.2f} at P = 48)."
    if ratio_1b > 1.1:
        return f"**The linear broadcast at 1 B is dearer than the model** (measured / model {ratio_1b:.2f} at P = 48)."
    return f"**The linear broadcast at 1 B follows the model** (measured / model {ratio_1b:.2f})."


def large_words(measured: pd.DataFrame, params: dict, P: int = 48) -> str:
    """1 MiB: measured / model per algorithm at P, which the trees sit above most."""
    t = model_table(measured, 1 << 20, ["basic_linear", "chain", "binary_tree"], params)
    r = {a: float(t.loc[P, a] / t.loc[P, f"{a} model"]) for a in ("basic_linear", "chain", "binary_tree")}
    return large_sentence(r, P)


def large_sentence(r: dict, P: int = 48) -> str:
    """The 1 MiB verdict from measured / model per algorithm at P ({algorithm: ratio})."""
    above = [a for a, v in r.items() if v > 1]
    worst = max(r, key=r.get)
    if not above:
        return (
            f"**At 1 MiB the measurements sit at or below the model** at P = {P} "
            f"(measured / model {', '.join(f'{a} {v:.2f}' for a, v in r.items())})."
        )
    names = [f"the {a.replace('_', ' ')}" for a in above]
    names = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return (
        f"**At 1 MiB the measurements sit above the model** for {names} at "
        f"P = {P}, the {worst.replace('_', ' ')} most (by a factor {r[worst]:.1f})."
    )
