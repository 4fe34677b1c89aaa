"""Collective split: per-algorithm models fitted up to one node's cores (or the smaller half of P) predict
the larger P; is the model's choice of algorithm the fastest measured one?"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .criteria import WITHIN

COLLECTIVES = ("bcast", "gather", "scatter", "reduce", "barrier")
FIGURE_POINTS = 40  # held-out collective (algorithm, P, n) points kept per dataset


def node_cores() -> dict:
    """Cores per node of each ORFEO machine whose geometry the hardware table gives."""
    from .. import orfeo

    out = {}
    for machine in dict.fromkeys(orfeo.summary_table("hardware_seed").machine):
        try:
            out[machine] = orfeo.node(machine).cores_per_node
        except LookupError:
            continue  # the GPU nodes: the documents do not give their geometry
    return out


def _train_cut(machine: str, Ps, cores: dict) -> tuple[int, str]:
    """Largest P fitted on: up to one node's cores when the runs go beyond them (mapped by node,
    those processes span the nodes), else the smaller half."""
    Ps = np.sort(np.unique(Ps))
    c = cores.get(machine)
    if c and Ps.max() > c and (Ps <= c).sum() >= 2:
        return c, "one node's cores"
    return int(Ps[max(0, math.ceil(len(Ps) / 2) - 1)]), "smaller half of P"


def model_of(op: str, label: str) -> str | None:
    """The model of an ORFEO algorithm label (an Open MPI coll_tuned name), or None. The
    pipeline's model needs the library's segment size, which the ORFEO files do not record."""
    from ..algorithms import by_label

    a = by_label(op, label)
    return a.model if a is not None and a.model != "pipeline" else None


def collective_datasets():
    """(op, dataset, machine, mapping, tidy rows) for every ORFEO collective dataset with at
    least two modelled algorithms; other datasets as (op, dataset, machine, mapping, why not)."""
    from .. import orfeo
    from ..models.collective_schedules import ALGORITHMS

    for op in COLLECTIVES:
        df, _ = orfeo.load(op, raw=True)
        df = df[df.benchmark == op]
        df = df.assign(dataset=df.source.str.split("@").str[0])
        for (ds, machine, mapping), g in df.groupby(["dataset", "machine", "mapping"], sort=True):
            algs = sorted(a for a in set(g.algorithm) if model_of(op, a) is not None)
            if op not in ALGORITHMS:
                yield op, ds, machine, mapping, f"no model of {op} algorithms"
            elif len(algs) < 2:
                yield (
                    op,
                    ds,
                    machine,
                    mapping,
                    (f"fewer than two modelled algorithms measured ({', '.join(sorted(set(g.algorithm)))})"),
                )
            elif g.size_bytes.nunique() < 2:
                yield op, ds, machine, mapping, "one message size: λ and b cannot be separated"
            else:
                yield op, ds, machine, mapping, g[g.algorithm.isin(algs)]


def collective_processes(datasets=None, cores=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per dataset and mapping: how often the model's choice is right on held-out P,
    a deterministic sample of held-out (algorithm, P, n) points for the figure)."""
    from ..models.collective_costs import fit_algorithm

    cores = node_cores() if cores is None else cores
    datasets = collective_datasets() if datasets is None else datasets
    rows, points = [], []
    for op, ds, machine, mapping, g in datasets:
        base = {"op": op, "dataset": ds, "machine": machine, "mapping": mapping}
        if isinstance(g, str):
            rows.append({**base, "status": g})
            continue
        g = g[g.np >= 2].groupby(["algorithm", "np", "size_bytes"], as_index=False).t_us.median()
        cut, how = _train_cut(machine, g.np, cores)
        fits, errors = {}, {}
        for alg, ga in g.groupby("algorithm", sort=True):
            model = model_of(op, alg)
            try:
                f = fit_algorithm(ga, op, model, train=(ga.np <= cut).to_numpy())
            except ValueError as e:
                errors[alg] = str(e)
                continue
            fits[alg] = f
        if len(fits) < 2:
            rows.append({**base, "status": "fit failed: " + "; ".join(f"{a}: {e}" for a, e in errors.items())})
            continue
        wide = g.pivot_table(index=["np", "size_bytes"], columns="algorithm", values="t_us")
        wide = wide[list(fits)].dropna()
        test = wide[wide.index.get_level_values("np") > cut]
        if test.empty:
            rows.append({**base, "status": "no held-out P measured with every algorithm"})
            continue
        P = test.index.get_level_values("np").to_numpy()
        n = test.index.get_level_values("size_bytes").to_numpy(float)
        pred = pd.DataFrame({a: _predict_each_P(f, P, n) for a, f in fits.items()}, index=test.index)
        chosen = pred.idxmin(axis=1)
        best = test.min(axis=1)
        t_chosen = np.array([test.loc[i, a] for i, a in zip(test.index, chosen)])
        ratio = t_chosen / best.to_numpy()
        test_err = {a: float(np.median(np.abs(pred[a] / test[a] - 1))) for a in fits}
        rows.append(
            {
                **base,
                "status": "ok",
                "algorithms": " ".join(model_of(op, a) for a in fits),
                "train": f"P <= {cut} ({how})",
                "cases": int(len(test)),
                "chosen_fastest": float(np.mean(ratio <= 1 + 1e-12)),
                "chosen_within_10": float(np.mean(ratio <= 1 + WITHIN)),
                "median_model_error": float(np.median(list(test_err.values()))),
                "worst_model_error": float(max(test_err.values())),
                "always_one": _always_one(test, fits),
            }
        )
        # figure sample: every k-th held-out point of every algorithm (deterministic)
        long = pd.concat(
            [
                pd.DataFrame(
                    {
                        "algorithm": model_of(op, a),
                        "np": P,
                        "size_bytes": n.astype(int),
                        "t_us": test[a].to_numpy(),
                        "pred_us": pred[a].to_numpy(),
                    }
                )
                for a in fits
            ]
        )
        step = max(1, math.ceil(len(long) / FIGURE_POINTS))
        points.append(long.iloc[::step].assign(op=op, dataset=ds))
    cols = [
        "op",
        "dataset",
        "machine",
        "mapping",
        "status",
        "algorithms",
        "train",
        "cases",
        "chosen_fastest",
        "chosen_within_10",
        "always_one",
        "median_model_error",
        "worst_model_error",
    ]
    table = pd.DataFrame(rows).reindex(columns=cols)
    pts = pd.concat(points, ignore_index=True) if points else pd.DataFrame()
    return table, pts


def _predict_each_P(f, P, n) -> np.ndarray:
    out = np.empty(n.size)
    for p in np.unique(P):
        sel = P == p
        out[sel] = f.predict(int(p), n[sel])
    return out


def _always_one(test: pd.DataFrame, fits) -> float:
    """Share of cases a fixed choice (the single algorithm most often within 10 % of the best)
    would have got right: the bar a model must clear to be worth asking."""
    ok = test.le(test.min(axis=1) * (1 + WITHIN), axis=0)
    return float(ok.mean().max())
