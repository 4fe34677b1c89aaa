"""The references of the exercises of the validation page (book/validation.md): computed from the validation tables."""

from __future__ import annotations

from ...exercises.core import _exercise


@_exercise("val-5pct", "validation", rel_tol=0.03, giveaways=("pred_us / pts.t_us - 1) <= 0.05",))
def _val_5pct():
    from ... import validate

    pts = validate.load_table("pingpong_points")
    return float(((pts.pred_us / pts.t_us - 1).abs() <= 0.05).mean())


@_exercise("val-jacobi-over", "validation", rel_tol=0, unit="runs", giveaways=("model_over_measured > 1.15",))
def _val_jacobi_over():
    from ... import validate

    return int((validate.load_table("jacobi").model_over_measured > 1.15).sum())


@_exercise(
    "val-runs",
    "validation",
    rel_tol=0.03,
    giveaways=("err_model > runs_table.diff_measured", "err_model > r.diff_measured"),
)
def _val_runs():
    from ... import validate

    r = validate.load_table("pingpong_runs")
    return float((r.err_model > r.diff_measured).mean())
