"""The references of the exercises of the validation page (book/validation.md): computed from the validation tables."""

from __future__ import annotations

from ...exercises.core import _exercise


@_exercise("val-5pct", "validation", rel_tol=0.03, giveaways=("pred_us / pts.t_us - 1) <= 0.05",))
def _val_5pct():
    """Hint: Compare pred_us with t_us point by point: |pred_us / t_us - 1| <= 0.05.

    Method: build the boolean column (abs(pts.pred_us / pts.t_us - 1) <= 0.05) and take its mean: the fraction of points
    within 5 %.
    """
    from ... import validate

    pts = validate.load_table("pingpong_points")
    return float(((pts.pred_us / pts.t_us - 1).abs() <= 0.05).mean())


@_exercise("val-jacobi-over", "validation", rel_tol=0, unit="runs", giveaways=("model_over_measured > 1.15",))
def _val_jacobi_over():
    """Hint: The column model_over_measured is the model's MLUP/s over the measured MLUP/s.

    Method: count the rows of the jacobi table whose model_over_measured is above 1.15.
    """
    from ... import validate

    return int((validate.load_table("jacobi").model_over_measured > 1.15).sum())


@_exercise(
    "val-runs",
    "validation",
    rel_tol=0.03,
    giveaways=("err_model > runs_table.diff_measured", "err_model > r.diff_measured"),
)
def _val_runs():
    """Hint: Compare err_model with diff_measured row by row, not their medians.

    Method: build the boolean column runs_table.err_model > runs_table.diff_measured and take its mean.
    """
    from ... import validate

    r = validate.load_table("pingpong_runs")
    return float((r.err_model > r.diff_measured).mean())
