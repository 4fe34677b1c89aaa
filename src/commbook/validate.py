"""Out-of-sample validation: fit a model on part of the ORFEO data, predict the rest.

Named splits, one function each, every one reading the hash-checked raw ORFEO files through
:func:`commbook.orfeo.load`:

* ``pingpong/sizes``     each ping-pong curve: fit on the even-indexed sizes, predict the odd
  ones; the piecewise Hockney fit as the chapter uses it (BIC), its predictive setting
  (:data:`commbook.fit.PREDICTIVE`) and plain log-log interpolation between the same points;
* ``pingpong/runs``      fit one repetition (run 1) on all sizes, predict the other runs;
* ``pingpong/machines``  fit a THIN curve, predict the GPU-node curve of the same student,
  library, mapping and transport (the nodes differ; does the model carry over?);
* ``collectives/processes``  per-algorithm models (``models.collective_costs.fit_algorithm``) fitted
  on one node (or on the smaller half of the process counts when the data stay on one node)
  predict the larger P; the model's choice of algorithm is scored against the measured times;
* ``jacobi/model``       the report's model P(L, N) against every ORFEO Jacobi run it covers
  (``models.jacobi.orfeo_comparison``; nothing is fitted to these runs, T_s and the link
  parameters come from the report).

:func:`run` computes the result tables, :func:`write_tables` commits them to
``data/validation/`` (atomic writes, ``# key: value`` metadata, every row names its raw
file(s) as repository@commit:path or the catalog dataset), and :func:`load_table`,
:func:`summary` and :func:`headline` read them back for the book, which needs no raw data.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import config
from . import fit as fitting
from .data import atomic_write_text

TABLES_DIR = config.data_dir() / "validation"
WITHIN = 0.10  # "within 10 %": the ping-pong and collective criterion
JACOBI_WITHIN = 0.15
SPLITS = {
    "pingpong": ("sizes", "runs", "machines"),
    "collectives": ("processes",),
    "jacobi": ("model",),
}
COLLECTIVES = ("bcast", "gather", "scatter", "reduce", "barrier")
# figure samples, deterministic, so the committed tables stay small (< 500 kB in all):
FIGURE_POINTS = 40  # held-out collective (algorithm, P, n) points kept per dataset
PINGPONG_POINT_STEP = 2  # every 2nd held-out ping-pong point


# ----------------------------------------------------------------------------- ping-pong
def _curve_label(params: str) -> str:
    """The per-curve part of params: what distinguishes curves of one file (run, block...)."""
    return re.sub(r"(^|;)bw_MBps=[^;]*", "", params).strip(";")


def pingpong_curves() -> list[dict]:
    """Every ORFEO ping-pong curve (raw files and the students' per-file means): one per file,
    or per block of the multi-block files; sizes sorted, repeated sizes by their median."""
    from . import orfeo

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


def _rel(pred, t) -> np.ndarray:
    return np.asarray(pred, float) / np.asarray(t, float) - 1.0


def _fits(n, t):
    return {
        "piecewise_bic": fitting.fit_piecewise(n, t, n_boot=0),
        "piecewise_predictive": fitting.fit_piecewise(n, t, n_boot=0, **fitting.PREDICTIVE),
    }


PINGPONG_METHODS = ("piecewise_bic", "piecewise_predictive", "interpolation")


def pingpong_sizes(curves=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per curve: median |error| of each method on the held-out sizes,
    one row per held-out point of the predictive fit, for the figure)."""
    curves = pingpong_curves() if curves is None else curves
    rows, points = [], []
    for cid, c in enumerate(curves):
        n, t = c["n"], c["t"]
        if n.size < 6:
            continue
        fit_mask = np.arange(n.size) % 2 == 0
        fits = _fits(n[fit_mask], t[fit_mask])
        pred = {k: f.time_us(n[~fit_mask]) for k, f in fits.items()}
        pred["interpolation"] = loglog_interpolate(n[fit_mask], t[fit_mask], n[~fit_mask])
        row = {
            "curve": cid,
            **{k: c[k] for k in ("source", "machine", "mapping", "transport", "mpi_library", "curve")},
            "n_fit": int(fit_mask.sum()),
            "n_test": int((~fit_mask).sum()),
            "segments_bic": fits["piecewise_bic"].n_segments,
            "segments_predictive": fits["piecewise_predictive"].n_segments,
        }
        row["curve_label"] = row.pop("curve")
        row["curve"] = cid
        for k, p in pred.items():
            row[f"err_{k}"] = float(np.median(np.abs(_rel(p, t[~fit_mask]))))
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
    rows = []
    for a, b, what in pairs:
        common, ia, ib = np.intersect1d(a["n"], b["n"], return_indices=True)
        if common.size < 6:
            continue
        f = fitting.fit_piecewise(a["n"], a["t"], n_boot=0, **fitting.PREDICTIVE)
        e = np.abs(_rel(f.time_us(common), b["t"][ib]))
        same = np.abs(_rel(a["t"][ia], b["t"][ib]))  # how much the two curves differ anyway
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


# --------------------------------------------------------------------------- collectives
def node_cores() -> dict:
    """Cores per node of each ORFEO machine whose geometry the hardware table gives."""
    from . import orfeo

    out = {}
    for machine in dict.fromkeys(orfeo.summary_table("hardware_seed").machine):
        try:
            out[machine] = orfeo.node(machine).cores_per_node
        except LookupError:
            continue  # the GPU nodes: the documents do not give their geometry
    return out


def _train_cut(machine: str, Ps, cores: dict) -> tuple[int, str]:
    """Largest P fitted on: one node when the runs go beyond one, else the smaller half."""
    Ps = np.sort(np.unique(Ps))
    c = cores.get(machine)
    if c and Ps.max() > c and (Ps <= c).sum() >= 2:
        return c, "one node"
    return int(Ps[max(0, math.ceil(len(Ps) / 2) - 1)]), "smaller half of P"


def model_of(op: str, label: str) -> str | None:
    """The model of an ORFEO algorithm label (an Open MPI coll_tuned name), or None. The
    pipeline's model needs the library's segment size, which the ORFEO files do not record."""
    from .algorithms import by_label

    a = by_label(op, label)
    return a.model if a is not None and a.model != "pipeline" else None


def collective_datasets():
    """(op, dataset, machine, mapping, tidy rows) for every ORFEO collective dataset with at
    least two modelled algorithms; other datasets as (op, dataset, machine, mapping, why not)."""
    from . import orfeo
    from .models.collective_schedules import ALGORITHMS

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
    from .models.collective_costs import fit_algorithm

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


# -------------------------------------------------------------------------------- Jacobi
def jacobi_model() -> pd.DataFrame:
    """Every ORFEO Jacobi run the report's model covers, with model/measured."""
    from . import orfeo
    from .models.jacobi import orfeo_comparison

    runs, _ = orfeo.load("jacobi", raw=True)
    df = orfeo_comparison(runs, orfeo.summary_table("jacobi_seed"))
    df["within_15"] = (df.model_over_measured - 1).abs() <= JACOBI_WITHIN
    return df


# ------------------------------------------------------------------------------- tables
TABLE_FILES = {
    "pingpong_sizes": "pingpong_sizes.csv",
    "pingpong_points": "pingpong_points.csv",
    "pingpong_runs": "pingpong_runs.csv",
    "pingpong_machines": "pingpong_machines.csv",
    "collectives": "collectives.csv",
    "collectives_points": "collectives_points.csv",
    "jacobi": "jacobi.csv",
}
DESCRIPTIONS = {
    "pingpong_sizes": "one row per ORFEO ping-pong curve: median |relative error| on the odd-indexed "
    "sizes of a fit on the even-indexed ones (err_*), per method",
    "pingpong_points": "every 2nd held-out point of pingpong_sizes (curve = its row there) and "
    "the predictive piecewise fit's prediction (interp_us: log-log interpolation)",
    "pingpong_runs": "run 1 of a repeated ping-pong measurement (predictive piecewise fit) "
    "predicts the other runs; diff_measured: how much the runs differ anyway",
    "pingpong_machines": "a THIN curve (predictive piecewise fit) predicts the GPU-node curve of "
    "the same configuration",
    "collectives": "per-algorithm collective models fitted on small P predict larger P: how "
    "often the model's choice is the fastest measured algorithm or within 10 %",
    "collectives_points": "a deterministic sample of the held-out collective points (every k-th, "
    "about 40 per dataset and mapping)",
    "jacobi": "the report's model P(L, N) against every ORFEO Jacobi run it covers",
}


def run(parts=("pingpong", "collectives", "jacobi")) -> dict[str, pd.DataFrame]:
    """Compute the result tables of the named parts (see SPLITS)."""
    unknown = set(parts) - set(SPLITS)
    if unknown:
        raise ValueError(f"unknown validation part(s) {sorted(unknown)}; known: {sorted(SPLITS)}")
    out = {}
    if "pingpong" in parts:
        curves = pingpong_curves()
        out["pingpong_sizes"], out["pingpong_points"] = pingpong_sizes(curves)
        out["pingpong_runs"] = pingpong_runs(curves)
        out["pingpong_machines"] = pingpong_machines(curves)
    if "collectives" in parts:
        out["collectives"], out["collectives_points"] = collective_processes()
    if "jacobi" in parts:
        out["jacobi"] = jacobi_model()
    return out


def _sources_note(name: str, df: pd.DataFrame) -> str:
    if name.startswith("collectives"):
        return (
            "dataset = ORFEO catalog dataset owner/repository: its raw files, commits and "
            "sha256 are the catalog rows data/orfeo/catalog.csv of that repository"
        )
    if name == "pingpong_points":
        return "curve = the row of pingpong_sizes.csv, which names the raw file as repository@commit:path"
    return "source columns name each raw file as repository@commit:path (data/orfeo/catalog.csv)"


def to_csv_text(name: str, df: pd.DataFrame, command: str) -> str:
    """The committed form: metadata lines, then CSV with 6 significant digits (deterministic)."""
    meta = [
        f"# what: {DESCRIPTIONS[name]}",
        f"# sources: {_sources_note(name, df)}",
        f"# regenerate: {command}",
        "# derived from the raw ORFEO files; not measurements of ours",
    ]
    body = df.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    return "\n".join(meta) + "\n" + body


def write_tables(tables: dict, directory=None, command: str = "commbook validate all --write") -> list[Path]:
    directory = Path(directory) if directory else TABLES_DIR
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, df in tables.items():
        path = directory / TABLE_FILES[name]
        atomic_write_text(path, to_csv_text(name, df, command))
        paths.append(path)
    return paths


def load_table(name: str, directory=None) -> pd.DataFrame:
    """A committed result table (no raw data needed)."""
    if name not in TABLE_FILES:
        raise ValueError(f"unknown validation table '{name}'; known: {sorted(TABLE_FILES)}")
    path = (Path(directory) if directory else TABLES_DIR) / TABLE_FILES[name]
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `commbook validate all --write`")
    try:
        return pd.read_csv(path, comment="#", keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:  # a split with no pairs in the data
        return pd.DataFrame()


# ------------------------------------------------------------------------------ summary
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
                "cases": f"{len(g)} datasets, {g.cases.sum()} (P, n)",
                "median error": f"{g.median_error.median():.1%}",
                "within band": f"{g.share_within.min():.0%} to {g.share_within.max():.0%}",
                "goal": "≥ 80% each",
                "met": f"{(g.met == 'yes').sum()} of {len(g)}",
            },
        )
    return pd.DataFrame(rows)


def headline(name: str, directory=None) -> str:
    """One sentence a chapter can quote ("pingpong", "collectives" or "jacobi")."""
    s = summary(directory)
    if name == "pingpong":
        r = s[(s.model == "ping-pong") & s.split.str.startswith("sizes")].set_index("method")
        p, b, i = r.loc["piecewise predictive"], r.loc["piecewise bic"], r.loc["interpolation"]
        return (
            f"Fitted on the even sizes of {int(p.cases)} ORFEO ping-pong curves, the piecewise "
            f"Hockney model predicts the odd sizes with a median error of {p.median_error:.1%} "
            f"({p.share_within:.0%} of the curves within 10 %; log-log interpolation "
            f"{i.median_error:.1%}, {i.share_within:.0%}; the descriptive BIC fit "
            f"{b.median_error:.1%}, {b.share_within:.0%})."
        )
    if name == "collectives":
        r = s[s.model.str.endswith("algorithm choice")]
        met = int((r.met == "yes").sum())
        return (
            f"Fitted on small process counts, the per-algorithm models pick the fastest "
            f"algorithm or one within 10 % of it in {r.share_within.min():.0%} to "
            f"{r.share_within.max():.0%} of the larger-P cases, depending on the dataset "
            f"(≥ 80 % in {met} of {len(r)} ORFEO datasets and mappings)."
        )
    if name == "jacobi":
        r = s[s.model == "Jacobi P(L, N)"].iloc[0]
        return (
            f"The model P(L, N) is within 15 % of {r.share_within:.0%} of the {int(r.cases)} "
            f"ORFEO Jacobi runs it covers (median error {r.median_error:.0%})."
        )
    raise ValueError(f"no headline for '{name}'; known: pingpong, collectives, jacobi")


# ------------------------------------------------------------------------------- figures
def _scatter(ax, measured, predicted, band: float, title: str, color=None, label=None):
    measured, predicted = np.asarray(measured, float), np.asarray(predicted, float)
    ok = (measured > 0) & (predicted > 0)
    measured, predicted = measured[ok], predicted[ok]
    inside = np.abs(predicted / measured - 1) <= band
    ax.scatter(
        measured[inside],
        predicted[inside],
        s=6,
        alpha=0.5,
        color=color or "tab:blue",
        label=label or f"within {band:.0%}: {inside.mean():.0%} of {inside.size} points",
    )
    ax.scatter(measured[~inside], predicted[~inside], s=6, alpha=0.6, color="tab:red", label=f"outside {band:.0%}")
    lo, hi = min(measured.min(), predicted.min()) / 1.5, max(measured.max(), predicted.max()) * 1.5
    x = np.geomspace(lo, hi, 50)
    ax.plot(x, x, color="black", lw=0.8)
    ax.fill_between(x, x * (1 - band), x * (1 + band), color="grey", alpha=0.25, label=f"±{band:.0%} band")
    ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi), title=title)
    ax.legend(fontsize=7, loc="upper left")


def figure(name: str, directory=None):
    """Predicted against measured (log-log, the acceptance band drawn) from the committed
    tables: "pingpong", "collectives" or "jacobi". Model values are labelled as such."""
    import matplotlib.pyplot as plt

    if name == "pingpong":
        pts = load_table("pingpong_points", directory)
        fig, ax = plt.subplots(figsize=(5.5, 5))
        _scatter(
            ax,
            pts.t_us,
            pts.pred_us,
            WITHIN,
            "ping-pong: held-out sizes (odd), piecewise model fitted on the even ones",
        )
        ax.set(xlabel="measured time (µs)", ylabel="model time (µs)")
    elif name == "collectives":
        pts = load_table("collectives_points", directory)
        ops = sorted(set(pts.op))
        fig, axes = plt.subplots(1, len(ops), figsize=(4.2 * len(ops), 4.2), squeeze=False)
        for ax, op in zip(axes[0], ops):
            p = pts[pts.op == op]
            _scatter(ax, p.t_us, p.pred_us, WITHIN, f"{op}: P beyond the fitted ones")
            ax.set(xlabel="measured time (µs)", ylabel="model time (µs)")
    elif name == "jacobi":
        ja = load_table("jacobi", directory)
        fig, ax = plt.subplots(figsize=(5.5, 5))
        for machine, color in (("orfeo-thin", "tab:blue"), ("orfeo-gpu", "tab:green")):
            j = ja[ja.machine == machine]
            ax.scatter(
                j.measured_mlups,
                j.model_mlups,
                s=14,
                color=color,
                label=f"{machine}: {j.within_15.mean():.0%} of {len(j)} runs within 15 %",
            )
        x = np.geomspace(ja.measured_mlups.min() / 1.5, ja.model_mlups.max() * 1.5, 50)
        ax.plot(x, x, color="black", lw=0.8)
        ax.fill_between(
            x, x * (1 - JACOBI_WITHIN), x * (1 + JACOBI_WITHIN), color="grey", alpha=0.25, label="±15 % band"
        )
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="measured MLUP/s",
            ylabel="model MLUP/s",
            title="Jacobi: the report's model P(L, N) against every run",
        )
        ax.legend(fontsize=7, loc="upper left")
    else:
        raise ValueError(f"no validation figure '{name}'; known: pingpong, collectives, jacobi")
    fig.tight_layout()
    return fig
