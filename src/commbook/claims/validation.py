"""Claims of the validation page (book/validation.md): the criteria of commbook.validate and
the result tables in data/validation/."""

from __future__ import annotations

from . import claim

TABLES = "data/validation/{} (commbook validate all --write)"
RIGHT = 0.8  # "right in at least 80 % of the cases": the page's threshold for a good choice


def _table(name):
    from .. import validate

    return validate.load_table(name)


@claim("val-within", page=("validation", "pingpong"), unit="%", source="commbook.validate.WITHIN")
def _():
    from .. import validate

    return validate.WITHIN * 100


@claim("val-jacobi-within", page="validation", unit="%", source="commbook.validate.JACOBI_WITHIN")
def _():
    from .. import validate

    return validate.JACOBI_WITHIN * 100


def _pp_points(column, band):
    pts = _table("pingpong_points")
    return float((abs(pts[column] / pts.t_us - 1) <= band).mean() * 100)


@claim("val-pp-points-model-10", page="validation", unit="%", source=TABLES.format("pingpong_points.csv"))
def _():
    return _pp_points("pred_us", 0.10)


@claim("val-pp-points-interp-10", page="validation", unit="%", source=TABLES.format("pingpong_points.csv"))
def _():
    return _pp_points("interp_us", 0.10)


@claim("val-pp-above", page="validation", unit="", source=TABLES.format("pingpong_sizes.csv") + ": curves above 10 %")
def _():
    from .. import validate

    pp = _table("pingpong_sizes")
    return float((pp.err_piecewise_predictive > validate.WITHIN).sum())


@claim(
    "val-pp-above-gpu",
    page="validation",
    unit="",
    source=TABLES.format("pingpong_sizes.csv") + ": of those, on GPU nodes",
)
def _():
    from .. import validate

    pp = _table("pingpong_sizes")
    bad = pp[pp.err_piecewise_predictive > validate.WITHIN]
    return float((bad.machine == "orfeo-gpu").sum())


@claim(
    "val-pp-above-placement",
    page="validation",
    unit="",
    source=TABLES.format("pingpong_sizes.csv") + ": placements of the curves above 10 %",
)
def _():
    from .. import validate

    pp = _table("pingpong_sizes")
    bad = pp[pp.err_piecewise_predictive > validate.WITHIN]
    return "intra-node" if set(bad.mapping) <= {"core", "socket"} else ", ".join(sorted(set(bad.mapping)))


def _collectives():
    co = _table("collectives")
    return co[co.status == "ok"]


@claim("val-coll-rows", page="validation", unit="", source=TABLES.format("collectives.csv") + ": scored rows")
def _():
    return float(len(_collectives()))


@claim(
    "val-coll-right-80",
    page="validation",
    unit="",
    source=TABLES.format("collectives.csv") + ": rows with chosen_within_10 >= 80 %",
)
def _():
    return float((_collectives().chosen_within_10 >= RIGHT).sum())


@claim(
    "val-coll-above-always",
    page="validation",
    unit="",
    source=TABLES.format("collectives.csv") + ": rows where the model beats always_one",
)
def _():
    ok = _collectives()
    return float((ok.chosen_within_10 > ok.always_one + 1e-9).sum())


def _wrong():
    ok = _collectives()
    return 1 - ok[ok.chosen_within_10 < RIGHT].chosen_within_10


@claim(
    "val-coll-wrong-rows",
    page="validation",
    unit="",
    source=TABLES.format("collectives.csv") + ": rows right in less than 80 %",
)
def _():
    return float(len(_wrong()))


@claim("val-coll-wrong-min", page="validation", unit="%", source=TABLES.format("collectives.csv"))
def _():
    return float(_wrong().min() * 100)


@claim("val-coll-wrong-max", page="validation", unit="%", source=TABLES.format("collectives.csv"))
def _():
    return float(_wrong().max() * 100)


def _errors(op):
    ok = _collectives()
    return ok[ok.op.isin(op)].median_model_error * 100


@claim(
    "val-coll-error-min", page="validation", unit="%", source=TABLES.format("collectives.csv") + ": bcast and scatter"
)
def _():
    return float(_errors(["bcast", "scatter"]).min())


@claim(
    "val-coll-error-max", page="validation", unit="%", source=TABLES.format("collectives.csv") + ": bcast and scatter"
)
def _():
    return float(_errors(["bcast", "scatter"]).max())


@claim("val-coll-error-gather", page="validation", unit="%", source=TABLES.format("collectives.csv") + ": gather")
def _():
    return float(_errors(["gather"]).max())


def _jacobi():
    return _table("jacobi")


def _misses():
    ja = _jacobi()
    return ja[~ja.within_15.astype(bool)]


@claim(
    "val-jac-miss-machine", page="validation", unit="", source=TABLES.format("jacobi.csv") + ": node type of every miss"
)
def _():
    machines = sorted(set(_misses().machine))
    return "GPU" if machines == ["orfeo-gpu"] else ", ".join(machines)


@claim("val-jac-miss-np-min", page="validation", unit="", source=TABLES.format("jacobi.csv"))
def _():
    return float(_misses().np.min())


@claim("val-jac-miss-np-max", page="validation", unit="", source=TABLES.format("jacobi.csv"))
def _():
    return float(_misses().np.max())


def _gpu48(scaling):
    ja = _jacobi()
    return ja[(ja.machine == "orfeo-gpu") & (ja.np == 48) & (ja.scaling == scaling)]


@claim(
    "val-jac-weak48",
    page="validation",
    unit="MLUP/s",
    source=TABLES.format("jacobi.csv") + ": GPU node, 48 processes, weak scaling, median",
)
def _():
    return float(_gpu48("weak").measured_mlups.median())


@claim(
    "val-jac-strong48-min",
    page="validation",
    unit="MLUP/s",
    source=TABLES.format("jacobi.csv") + ": GPU node, 48 processes, strong scaling",
)
def _():
    return float(_gpu48("strong").measured_mlups.min())


@claim(
    "val-jac-strong48-max",
    page="validation",
    unit="MLUP/s",
    source=TABLES.format("jacobi.csv") + ": GPU node, 48 processes, strong scaling",
)
def _():
    return float(_gpu48("strong").measured_mlups.max())


@claim(
    "val-jac-model48",
    page="validation",
    unit="MLUP/s",
    source=TABLES.format("jacobi.csv") + ": the model at 48 processes on a GPU node",
)
def _():
    ja = _jacobi()
    return float(ja[(ja.machine == "orfeo-gpu") & (ja.np == 48)].model_mlups.median())


@claim(
    "val-jac-upto24-worst",
    page="validation",
    unit="%",
    source=TABLES.format("jacobi.csv") + ": largest |model/measured - 1| up to 24 processes",
)
def _():
    ja = _jacobi()
    return float((ja[ja.np <= 24].model_over_measured - 1).abs().max() * 100)


@claim("val-coll-threshold", page="validation", unit="%", source="commbook.claims.validation.RIGHT")
def _():
    return RIGHT * 100
