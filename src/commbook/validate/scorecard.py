"""The validation in numbers the book quotes: one row per model and split (`summary`), pooled
per operation (`overview`), the verdicts the validation page words (`pingpong_verdict`,
`jacobi_verdict`); from the committed tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..verdict import Verdict, cases
from .criteria import JACOBI_WITHIN, WITHIN
from .pingpong_splits import PINGPONG_METHODS
from .tables import load_table


def summary(directory=None) -> pd.DataFrame:
    """One row per model and split: the measure, its value, the goal and whether it is met."""
    rows = []
    pp = load_table("pingpong_sizes", directory)
    for m in PINGPONG_METHODS:
        e = pp[f"err_{m}"]
        rows.append(
            {
                "model": "ping-pong",
                "split": "sizes (even -> odd)",
                "method": m.replace("_", " "),
                "cases": len(e),
                "median_error": float(e.median()),
                "share_within": float((e <= WITHIN).mean()),
                "goal": 0.95,
            }
        )
    for name, label in (("pingpong_runs", "runs (run 1 -> others)"), ("pingpong_machines", "machines (THIN -> GPU)")):
        t = load_table(name, directory)
        if len(t):
            rows.append(
                {
                    "model": "ping-pong",
                    "split": label,
                    "method": "piecewise predictive",
                    "cases": len(t),
                    "median_error": float(t.err_model.median()),
                    "share_within": float((t.err_model <= WITHIN).mean()),
                    "goal": float("nan"),
                }
            )
    co = load_table("collectives", directory)
    ok = co[co.status == "ok"]
    for (op, ds, mapping), r in ok.set_index(["op", "dataset", "mapping"]).iterrows():
        rows.append(
            {
                "model": f"{op} algorithm choice",
                "split": f"processes ({r.train})",
                "method": f"{ds} {r.machine.removeprefix('orfeo-')} {mapping}",
                "cases": int(r.cases),
                "median_error": float(r.median_model_error),
                "share_within": float(r.chosen_within_10),
                "goal": 0.80,
            }
        )
    ja = load_table("jacobi", directory)
    rows.append(
        {
            "model": "Jacobi P(L, N)",
            "split": "report model, no fit",
            "method": "model vs measured",
            "cases": len(ja),
            "median_error": float((ja.model_over_measured - 1).abs().median()),
            "share_within": float(ja.within_15.mean()),
            "goal": 1.0,
        }
    )
    df = pd.DataFrame(rows)
    df["met"] = np.where(df.goal.isna(), "", np.where(df.share_within >= df.goal - 1e-12, "yes", "no"))
    return df


def overview(directory=None) -> pd.DataFrame:
    """The summary in one screen: collectives pooled per operation (datasets meeting the goal)."""
    s = summary(directory)
    rows = []
    for _, r in s[~s.model.str.endswith("algorithm choice")].iterrows():
        rows.append(
            {
                "model": r.model,
                "split": r.split,
                "method": r.method,
                "cases": str(r.cases),
                "median error": f"{r.median_error:.1%}",
                "within band": f"{r.share_within:.0%}",
                "goal": "" if pd.isna(r.goal) else "all" if r.goal >= 1 else f"≥ {r.goal:.0%}",
                "met": r.met,
            }
        )
    co = s[s.model.str.endswith("algorithm choice")]
    for model, g in co.groupby("model", sort=False):
        rows.insert(
            -1,
            {
                "model": model,
                "split": "processes (small P -> larger P)",
                "method": "per-algorithm models",
                "cases": f"{len(g)} (dataset, mapping) pair{'s' * (len(g) != 1)}, {g.cases.sum()} (P, n)",
                "median error": f"{g.median_error.median():.1%}",
                "within band": _share_range(g.share_within.min(), g.share_within.max()),
                "goal": "≥ 80% each",
                "met": f"{(g.met == 'yes').sum()} of {len(g)}",
            },
        )
    return pd.DataFrame(rows)


def _share_range(low: float, high: float) -> str:
    """'61% to 96%', or '96%' when both ends print the same."""
    a, b = f"{low:.0%}", f"{high:.0%}"
    return a if a == b else f"{a} to {b}"


@cases("model_ahead", "interpolation_ahead", "split", "even")
def pingpong_verdict(sizes: pd.DataFrame | None = None) -> Verdict:
    """The sizes split (even -> odd), every curve of `sizes` (default: the committed
    pingpong_sizes table): each method's median error and share of curves within WITHIN, in %.
    The case compares the predictive piecewise model with log-log interpolation on both: lower
    error and a larger share ("model_ahead"), the reverse, one each ("split"), or a tie on
    either count ("even": neither is ahead on both)."""
    pp = load_table("pingpong_sizes") if sizes is None else sizes
    numbers = {"curves": len(pp)}
    for key, method in (("model", "piecewise_predictive"), ("interp", "interpolation"), ("bic", "piecewise_bic")):
        err = pp[f"err_{method}"]
        numbers[f"{key}_error"] = 100 * float(err.median())
        numbers[f"{key}_within"] = 100 * float((err <= WITHIN).mean())
    error = numbers["interp_error"] - numbers["model_error"]  # > 0: the model ahead
    share = numbers["model_within"] - numbers["interp_within"]  # > 0: the model ahead
    if error == 0 or share == 0:
        case = "even"
    elif error > 0 and share > 0:
        case = "model_ahead"
    else:
        case = "interpolation_ahead" if error < 0 and share < 0 else "split"
    return Verdict(case, numbers)


@cases("all_within", "some_outside")
def jacobi_verdict(runs: pd.DataFrame | None = None) -> Verdict:
    """The report's model against every run of `runs` (default: the committed jacobi table): how
    many runs, how many miss the JACOBI_WITHIN band, the median error (in %)."""
    ja = load_table("jacobi") if runs is None else runs
    within = ja.within_15.astype(bool)
    numbers = {
        "runs": len(ja),
        "outside": int((~within).sum()),
        "error": 100 * float((ja.model_over_measured - 1).abs().median()),
        "band": 100 * JACOBI_WITHIN,
    }
    return Verdict("all_within" if within.all() else "some_outside", numbers)
