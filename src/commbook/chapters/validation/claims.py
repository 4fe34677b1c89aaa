"""Claims of the validation page (book/validation.md): the criteria of commbook.validate and
the result tables in data/validation/."""

from __future__ import annotations

from ...claims import claim

PAGE = "validation"
TABLES = "data/validation/{} (commbook validate all --write)"
POINTS = TABLES.format("pingpong_points.csv")
SIZES = TABLES.format("pingpong_sizes.csv")
COLLECTIVES = TABLES.format("collectives.csv")
JACOBI = TABLES.format("jacobi.csv")
RIGHT = 0.8  # "right in at least 80 % of the cases": the page's threshold for a good choice


def _table(name):
    from ... import validate

    return validate.load_table(name)


@claim("val-within", page=(PAGE, "pingpong"), unit="%", source="commbook.validate.WITHIN")
def _():
    from ... import validate

    return validate.WITHIN * 100


@claim("val-jacobi-within", page=PAGE, unit="%", source="commbook.validate.JACOBI_WITHIN")
def _():
    from ... import validate

    return validate.JACOBI_WITHIN * 100


def _pp_points(column, band):
    pts = _table("pingpong_points")
    return float((abs(pts[column] / pts.t_us - 1) <= band).mean() * 100)


@claim("val-pp-points-model-10", page=PAGE, unit="%", source=POINTS)
def _():
    return _pp_points("pred_us", 0.10)


@claim("val-pp-points-interp-10", page=PAGE, unit="%", source=POINTS)
def _():
    return _pp_points("interp_us", 0.10)


def _pp_above():
    """The ping-pong curves whose predictive error is above commbook.validate.WITHIN."""
    from ... import validate

    pp = _table("pingpong_sizes")
    return pp[pp.err_piecewise_predictive > validate.WITHIN]


@claim("val-pp-above", page=PAGE, unit="", source=SIZES + ": curves above 10 %")
def _():
    return float(len(_pp_above()))


@claim("val-pp-above-gpu", page=PAGE, unit="", source=SIZES + ": of those, on GPU nodes")
def _():
    return float((_pp_above().machine == "orfeo-gpu").sum())


@claim("val-pp-above-placement", page=PAGE, unit="", source=SIZES + ": placements of the curves above 10 %")
def _():
    mappings = set(_pp_above().mapping)
    return "intra-node" if mappings <= {"core", "socket"} else ", ".join(sorted(mappings))


def _collectives():
    co = _table("collectives")
    return co[co.status == "ok"]


@claim("val-coll-rows", page=PAGE, unit="", source=COLLECTIVES + ": scored rows")
def _():
    return float(len(_collectives()))


@claim("val-coll-right-80", page=PAGE, unit="", source=COLLECTIVES + ": rows with chosen_within_10 >= 80 %")
def _():
    return float((_collectives().chosen_within_10 >= RIGHT).sum())


@claim("val-coll-above-always", page=PAGE, unit="", source=COLLECTIVES + ": rows where the model beats always_one")
def _():
    ok = _collectives()
    return float((ok.chosen_within_10 > ok.always_one + 1e-9).sum())


def _wrong():
    ok = _collectives()
    return 1 - ok[ok.chosen_within_10 < RIGHT].chosen_within_10


@claim("val-coll-wrong-rows", page=PAGE, unit="", source=COLLECTIVES + ": rows right in less than 80 %")
def _():
    return float(len(_wrong()))


@claim("val-coll-wrong-min", page=PAGE, unit="%", source=COLLECTIVES)
def _():
    return float(_wrong().min() * 100)


@claim("val-coll-wrong-max", page=PAGE, unit="%", source=COLLECTIVES)
def _():
    return float(_wrong().max() * 100)


def _errors(op):
    ok = _collectives()
    return ok[ok.op.isin(op)].median_model_error * 100


@claim("val-coll-error-min", page=PAGE, unit="%", source=COLLECTIVES + ": bcast and scatter")
def _():
    return float(_errors(["bcast", "scatter"]).min())


@claim("val-coll-error-max", page=PAGE, unit="%", source=COLLECTIVES + ": bcast and scatter")
def _():
    return float(_errors(["bcast", "scatter"]).max())


@claim("val-coll-error-gather", page=PAGE, unit="%", source=COLLECTIVES + ": gather")
def _():
    return float(_errors(["gather"]).max())


def _jacobi():
    return _table("jacobi")


def _misses():
    ja = _jacobi()
    return ja[~ja.within_15.astype(bool)]


@claim("val-jac-miss-machine", page=PAGE, unit="", source=JACOBI + ": node type of every miss")
def _():
    machines = sorted(set(_misses().machine))
    return "GPU" if machines == ["orfeo-gpu"] else ", ".join(machines)


@claim("val-jac-miss-np-min", page=PAGE, unit="", source=JACOBI)
def _():
    return float(_misses().np.min())


@claim("val-jac-miss-np-max", page=PAGE, unit="", source=JACOBI)
def _():
    return float(_misses().np.max())


def _gpu48(scaling=None):
    """The runs on a GPU node with 48 processes (of one scaling, if given)."""
    ja = _jacobi()
    runs = ja[(ja.machine == "orfeo-gpu") & (ja.np == 48)]
    return runs if scaling is None else runs[runs.scaling == scaling]


# the measured MLUP/s of the GPU node's runs on 48 processes
for _name, _scaling, _what, _statistic in [
    ("val-jac-weak48", "weak", "weak scaling, median", "median"),
    ("val-jac-strong48-min", "strong", "strong scaling", "min"),
    ("val-jac-strong48-max", "strong", "strong scaling", "max"),
]:
    claim(_name, page=PAGE, unit="MLUP/s", source=f"{JACOBI}: GPU node, 48 processes, {_what}")(
        lambda s=_scaling, f=_statistic: float(getattr(_gpu48(s).measured_mlups, f)())
    )


@claim("val-jac-model48", page=PAGE, unit="MLUP/s", source=JACOBI + ": the model at 48 processes on a GPU node")
def _():
    return float(_gpu48().model_mlups.median())


@claim("val-jac-upto24-worst", page=PAGE, unit="%", source=JACOBI + ": largest |model/measured - 1| up to 24 processes")
def _():
    ja = _jacobi()
    return float((ja[ja.np <= 24].model_over_measured - 1).abs().max() * 100)


@claim("val-coll-threshold", page=PAGE, unit="%", source="commbook.chapters.validation.claims.RIGHT")
def _():
    return RIGHT * 100
