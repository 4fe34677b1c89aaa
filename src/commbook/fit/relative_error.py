"""Fitting the Hockney model t(n) = λ + n/b to measured times on relative error (scipy): the
residual, the robust loss, the bounds; every fit in this package minimises this.

Why relative error
    Ping-pong sizes run from 0 B to hundreds of MB, so times span five or six decades. A plain
    least-squares fit of t against n minimises *absolute* errors, which the largest messages
    (milliseconds) dominate completely: the intercept λ is then whatever the big sizes imply,
    often tens of µs off and sometimes negative (the ORFEO student fits in the seed reports
    give λ = -38.6 µs for a link whose 0-byte time is 0.25 µs). Here the residual of each
    point is ``(model - t) / t``, so a 10 % miss counts the same at 8 B and at 512 MB, and
    λ ≥ 0, b > 0 are bounds of the fit, not hopes.

Why a robust loss
    Real curves are not one straight line: a protocol switch or a cache edge puts a few points
    tens of percent off any single (λ, b). ``soft_l1`` with ``f_scale`` = 5 % treats residuals
    below 5 % as least squares and grows only linearly beyond, so such points pull less.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import least_squares, nnls

DEFAULT_LOSS = "soft_l1"
DEFAULT_F_SCALE = 0.05  # relative residual where the robust loss turns linear
MAX_BANDWIDTH_MBPS = 1e7  # 10 TB/s: above any link; a fit that hits it did not see b
LOSSES = ("linear", "soft_l1", "huber", "cauchy", "arctan")


# ---------------------------------------------------------------------------------------
# Inputs


# Inputs beyond these would run for minutes, not seconds (hostile or mistaken input).
MAX_BOOT = 10_000
MAX_PIECEWISE_SIZES = 256


def check_data(sizes, times, two_sizes: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Sizes (bytes) and times (µs) as float arrays, refusing what cannot be fitted."""
    try:
        n = np.asarray(sizes, dtype=float).ravel()
        t = np.asarray(times, dtype=float).ravel()
    except (TypeError, ValueError) as e:
        raise ValueError(f"sizes and times must be numbers ({e})") from None
    if n.size == 0 or t.size == 0:
        raise ValueError("no data to fit: sizes and times are empty")
    if n.size != t.size:
        raise ValueError(f"{n.size} sizes but {t.size} times: they must pair up")
    if not np.all(np.isfinite(n)):
        raise ValueError("a size is not a finite number")
    if not np.all(np.isfinite(t)):
        raise ValueError("a time is not a finite number (NaN or inf)")
    if np.any(n < 0):
        raise ValueError(f"negative message size {n[n < 0][0]:g} bytes")
    if np.any(t <= 0):
        i = int(np.nonzero(t <= 0)[0][0])
        raise ValueError(f"time {t[i]:g} µs at size {n[i]:g} B is not positive")
    if two_sizes and np.unique(n).size < 2:
        raise ValueError("need at least two different message sizes to fit both λ and b")
    return n, t


def residuals(model, sizes, times) -> np.ndarray:
    """Relative residuals (model - measured) / measured, one per point."""
    n, t = check_data(sizes, times, two_sizes=False)
    return (model.time_us(n) - t) / t


def _quality(r: np.ndarray) -> dict:
    return {
        "rms_rel": float(np.sqrt(np.mean(r**2))),
        "max_rel": float(np.max(np.abs(r))),
        "median_abs_rel": float(np.median(np.abs(r))),
    }


def _fit_params(
    n, t, loss=DEFAULT_LOSS, f_scale=DEFAULT_F_SCALE, max_bandwidth=MAX_BANDWIDTH_MBPS
) -> tuple[float, float]:
    """(λ µs, β = 1/b µs per byte) minimising the robust loss of the relative residuals."""
    beta_min = 1.0 / max_bandwidth
    # The relative-error problem is linear in (λ, β): solve it with nnls for a start point.
    A = np.column_stack([1.0 / t, n / t])
    x0, _ = nnls(A, np.ones_like(t))
    # Scale the unknowns to order 1: λ by the smallest time, β by the time per byte at the top.
    s_lam = float(np.min(t))
    s_beta = float(np.max(t) / np.max(n)) if np.max(n) > 0 else 1.0
    lo = np.array([0.0, beta_min / s_beta])
    p0 = np.maximum(np.array([x0[0] / s_lam, x0[1] / s_beta]), lo * (1 + 1e-9) + 1e-12)
    if loss == "linear":
        return max(x0[0], 0.0), max(x0[1], beta_min)
    J = np.column_stack([s_lam / t, s_beta * n / t])

    def fun(p):
        return (p[0] * s_lam + p[1] * s_beta * n) / t - 1.0

    res = least_squares(fun, p0, jac=lambda p: J, bounds=(lo, np.inf), loss=loss, f_scale=f_scale, method="trf")
    return float(res.x[0] * s_lam), float(max(res.x[1] * s_beta, beta_min))


class _ModelResult:
    """A fit result answers for its model: times and effective bandwidth at given sizes."""

    def time_us(self, sizes):
        return self.model.time_us(sizes)

    def effective_bandwidth(self, sizes):
        return self.model.effective_bandwidth(sizes)
