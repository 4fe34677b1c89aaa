"""Ping-pong splits: each ORFEO curve fitted on every other size (even positions) predicts the
sizes between; run 1 predicts the other runs; a THIN curve predicts the GPU node's (piecewise Hockney, its predictive setting,
log-log interpolation)."""

from __future__ import annotations

import os
import re
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from .. import fit as fitting
from .criteria import rel_error

PINGPONG_POINT_STEP = 2  # every 2nd held-out ping-pong point (the committed tables stay small)


def _curve_label(params: str) -> str:
    """The per-curve part of params: what distinguishes curves of one file (run, block...)."""
    return re.sub(r"(^|;)bw_MBps=[^;]*", "", params).strip(";")


def pingpong_curves() -> list[dict]:
    """Every ORFEO ping-pong curve (raw files and the students' per-file means): one per file,
    or per block of the multi-block files; sizes sorted, repeated sizes by their median."""
    from .. import orfeo

    df, _ = orfeo.load("pingpong", roles=("raw", "mean"), raw=True)
    df = df[df.t_us > 0].assign(curve=[_curve_label(p) for p in df.params])
    keys = ["source", "machine", "mapping", "transport", "mpi_library", "curve"]
    out = []
    for key, g in df.groupby(keys, sort=True):
        g = g.groupby("size_bytes", as_index=False).t_us.median()
        out.append(dict(zip(keys, key), n=g.size_bytes.to_numpy(float), t=g.t_us.to_numpy(float)))
    return out


def loglog_interpolate(n_fit, t_fit, n_new) -> np.ndarray:
    """Straight lines between neighbouring measured points in log-log (size + 1 for 0 B)."""
    return np.exp(np.interp(np.log(np.asarray(n_new, float) + 1), np.log(np.asarray(n_fit) + 1), np.log(t_fit)))


def _on_every_core(function, jobs: list) -> list:
    """function(*job) for every job, in order, spread over the machine's cores: the fits are
    independent and each takes up to a second (the same results as one after the other)."""
    workers = min(len(jobs), os.cpu_count() or 1)
    if workers < 2:
        return [function(*job) for job in jobs]
    import multiprocessing

    # spawn: a fork of a process that runs threads (a notebook, a browser test) may inherit a held lock
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(function, *zip(*jobs), chunksize=max(1, len(jobs) // (8 * workers))))


def _sizes_split_predictions(n, t):
    """Fit every other size (even positions; both piecewise settings), predict the sizes between:
    (predictions, segments)."""
    fit_mask = np.arange(n.size) % 2 == 0
    fits = {
        "piecewise_bic": fitting.fit_piecewise(n[fit_mask], t[fit_mask], n_boot=0),
        "piecewise_predictive": fitting.fit_piecewise(n[fit_mask], t[fit_mask], n_boot=0, **fitting.PREDICTIVE),
    }
    return {k: f.time_us(n[~fit_mask]) for k, f in fits.items()}, {k: f.n_segments for k, f in fits.items()}


def _predictive_prediction(n_fit, t_fit, n_new):
    return fitting.fit_piecewise(n_fit, t_fit, n_boot=0, **fitting.PREDICTIVE).time_us(n_new)


PINGPONG_METHODS = ("piecewise_bic", "piecewise_predictive", "interpolation")


def pingpong_sizes(curves=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per curve: median |error| of each method on the held-out sizes,
    one row per held-out point of the predictive fit, for the figure)."""
    curves = pingpong_curves() if curves is None else curves
    rows, points = [], []
    used = [(cid, c) for cid, c in enumerate(curves) if c["n"].size >= 6]
    fitted = _on_every_core(_sizes_split_predictions, [(c["n"], c["t"]) for _, c in used])
    for (cid, c), (pred, segments) in zip(used, fitted):
        n, t = c["n"], c["t"]
        fit_mask = np.arange(n.size) % 2 == 0
        pred["interpolation"] = loglog_interpolate(n[fit_mask], t[fit_mask], n[~fit_mask])
        row = {
            "curve": cid,
            **{k: c[k] for k in ("source", "machine", "mapping", "transport", "mpi_library", "curve")},
            "n_fit": int(fit_mask.sum()),
            "n_test": int((~fit_mask).sum()),
            "segments_bic": segments["piecewise_bic"],
            "segments_predictive": segments["piecewise_predictive"],
        }
        row["curve_label"] = row.pop("curve")
        row["curve"] = cid
        for k, p in pred.items():
            row[f"err_{k}"] = float(np.median(np.abs(rel_error(p, t[~fit_mask]))))
        rows.append(row)
        for nn, tt, pp, ii in zip(n[~fit_mask], t[~fit_mask], pred["piecewise_predictive"], pred["interpolation"]):
            points.append(
                {"curve": cid, "size_bytes": int(nn), "t_us": tt, "pred_us": float(pp), "interp_us": float(ii)}
            )
    cols = [
        "curve",
        "source",
        "machine",
        "mapping",
        "transport",
        "mpi_library",
        "curve_label",
        "n_fit",
        "n_test",
        "segments_bic",
        "segments_predictive",
    ] + [f"err_{k}" for k in PINGPONG_METHODS]
    return pd.DataFrame(rows)[cols], pd.DataFrame(points).iloc[::PINGPONG_POINT_STEP].reset_index(drop=True)


PAIR_COLUMNS = [
    "split",
    "what",
    "fit_source",
    "fit_curve",
    "test_source",
    "test_curve",
    "machine_fit",
    "machine_test",
    "mapping",
    "transport",
    "mpi_library",
    "n_sizes",
    "err_model",
    "diff_measured",
]


def _pair_rows(pairs, split):
    """Fit (predictive piecewise) on all sizes of one curve, predict another at their common sizes."""
    rows, used = [], []
    for a, b, what in pairs:
        common, ia, ib = np.intersect1d(a["n"], b["n"], return_indices=True)
        if common.size >= 6:
            used.append((a, b, what, common, ia, ib))
    # run 1 predicts runs 2, 3, ... at the same sizes: fit it once
    jobs = {(id(a), common.tobytes()): (a["n"], a["t"], common) for a, _, _, common, _, _ in used}
    predicted = dict(zip(jobs, _on_every_core(_predictive_prediction, list(jobs.values()))))
    for a, b, what, common, ia, ib in used:
        prediction = predicted[id(a), common.tobytes()]
        e = np.abs(rel_error(prediction, b["t"][ib]))
        same = np.abs(rel_error(a["t"][ia], b["t"][ib]))  # how much the two curves differ anyway
        rows.append(
            {
                "split": split,
                "what": what,
                "fit_source": a["source"],
                "fit_curve": a["curve"],
                "test_source": b["source"],
                "test_curve": b["curve"],
                "machine_fit": a["machine"],
                "machine_test": b["machine"],
                "mapping": a["mapping"],
                "transport": a["transport"],
                "mpi_library": a["mpi_library"],
                "n_sizes": int(common.size),
                "err_model": float(np.median(e)),
                "diff_measured": float(np.median(same)),
            }
        )
    return rows


def pingpong_runs(curves=None) -> pd.DataFrame:
    """Run 1 of a repeated measurement predicts runs 2, 3, ... of the same configuration."""
    curves = pingpong_curves() if curves is None else curves
    groups: dict = {}
    for c in curves:
        m = re.fullmatch(r"run=(\d+)", c["curve"])
        if m:
            key = (re.sub(r"-\d\.csv$", "", c["source"]), c["machine"], c["mapping"], c["transport"], c["mpi_library"])
            groups.setdefault(key, {})[int(m.group(1))] = c
    pairs = []
    for key, runs in sorted(groups.items()):
        first = min(runs)
        pairs += [(runs[first], runs[r], f"run {first} -> run {r}") for r in sorted(runs) if r != first]
    return pd.DataFrame(_pair_rows(pairs, "runs"), columns=PAIR_COLUMNS)


def _machine_key(c):
    """What must agree for a THIN curve to stand in for a GPU-node one: the student's folder,
    library, mapping, transport and curve label, with the node name taken out of the path."""
    path = re.sub(r"(?i)(thin|gpu)", "X", c["source"])
    label = re.sub(r"variant=_?gpu", "", c["curve"], flags=re.I).strip(";")
    return (path.split("@")[0], re.sub(r"_GPU|_gpu", "", path), c["mapping"], c["transport"], c["mpi_library"], label)


def pingpong_machines(curves=None) -> pd.DataFrame:
    """A THIN curve predicts the GPU-node curve of the same configuration."""
    curves = pingpong_curves() if curves is None else curves
    thin = {_machine_key(c): c for c in curves if c["machine"] == "orfeo-thin"}
    pairs = [
        (thin[_machine_key(c)], c, "THIN -> GPU")
        for c in curves
        if c["machine"] == "orfeo-gpu" and _machine_key(c) in thin
    ]
    return pd.DataFrame(_pair_rows(pairs, "machines"), columns=PAIR_COLUMNS)
