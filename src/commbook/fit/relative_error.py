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


def _soft_l1_params_many(n, t, ranges, f_scale=DEFAULT_F_SCALE, max_bandwidth=MAX_BANDWIDTH_MBPS):
    """_fit_params with the soft_l1 loss for many segments at once: (λ, β) arrays, one per
    (start, stop) row range of the points (see _soft_l1_params_weighted)."""
    ranges = np.asarray(ranges, dtype=int).reshape(-1, 2)
    idx = np.arange(n.size)
    mask = (idx >= ranges[:, :1]) & (idx < ranges[:, 1:])  # segments x points
    return _soft_l1_params_weighted(n, t, mask.astype(float), f_scale, max_bandwidth)


def _soft_l1_params_weighted(n, t, counts, f_scale=DEFAULT_F_SCALE, max_bandwidth=MAX_BANDWIDTH_MBPS, tol=1e-12):
    """_fit_params with the soft_l1 loss for many problems at once: row i of `counts` says how
    many times each point counts in problem i (0: left out; a segment of the points, or a
    bootstrap resample). Returns (λ, β) arrays, one per row.

    The problem is convex (residuals linear in (λ, β), soft_l1 convex in r), so it has one
    optimum, the one scipy's least_squares finds. Each step solves every problem's 2 x 2
    weighted least squares, bounds included, in closed form: a Newton step (weights
    (1 + s)^-3/2, s = (r/f)², targets 1 - r s), kept where it lowers the loss, else the
    reweighting step (weights (1 + s)^-1/2, which always lowers it). A piecewise fit needs
    O(m²) segments and a bootstrap hundreds of refits: milliseconds instead of seconds."""
    counts = np.asarray(counts, dtype=float)
    mask = counts > 0
    inv_t = np.where(mask, 1.0 / t, 0.0)
    # Unknowns scaled to order 1 as in _fit_params: λ by the problem's smallest time, β by its
    # time per byte at the top.
    s_lam = np.where(mask, t, np.inf).min(axis=1)
    n_max = np.where(mask, n, -np.inf).max(axis=1)
    t_max = np.where(mask, t, -np.inf).max(axis=1)
    s_beta = np.where(n_max > 0, t_max / np.where(n_max > 0, n_max, 1.0), 1.0)
    a = inv_t * s_lam[:, None]
    c = inv_t * n * s_beta[:, None]
    lo_u = np.zeros(len(counts))
    lo_v = (1.0 / max_bandwidth) / s_beta

    def box_wls(w, y):  # argmin of sum w (a u + c v - y)² over u >= lo_u, v >= lo_v
        saa, sac, scc = (w * a * a).sum(1), (w * a * c).sum(1), (w * c * c).sum(1)
        sa, sc = (w * a * y).sum(1), (w * c * y).sum(1)

        def q(u, v):  # the weighted sum of squares at (u, v), less its constant
            return saa * u * u + 2 * sac * u * v + scc * v * v - 2 * sa * u - 2 * sc * v

        with np.errstate(divide="ignore", invalid="ignore"):
            det = saa * scc - sac * sac
            u0, v0 = (scc * sa - sac * sc) / det, (saa * sc - sac * sa) / det
            # the optimum on each bound (the other unknown free, then clipped to its bound)
            u1, v1 = lo_u, np.maximum((sc - sac * lo_u) / scc, lo_v)
            u2, v2 = np.maximum((sa - sac * lo_v) / saa, lo_u), lo_v
        inside = np.isfinite(u0) & np.isfinite(v0) & (u0 >= lo_u) & (v0 >= lo_v)
        on_u = q(u1, v1) <= q(u2, v2)
        return np.where(inside, u0, np.where(on_u, u1, u2)), np.where(inside, v0, np.where(on_u, v1, v2))

    def residual(u, v):
        return np.where(mask, a * u[:, None] + c * v[:, None] - 1.0, 0.0)

    def loss(r):
        return (counts * (np.sqrt(1.0 + (r / f_scale) ** 2) - 1.0)).sum(1)

    ones = np.ones_like(a)
    u, v = box_wls(counts, ones)  # plain least squares: the start
    for _ in range(200):
        r = residual(u, v)
        s = (r / f_scale) ** 2
        irls = box_wls(counts * (1.0 + s) ** -0.5, ones)
        newton = box_wls(counts * (1.0 + s) ** -1.5, 1.0 - r * s)
        take = loss(residual(*newton)) <= loss(residual(*irls))
        nu, nv = np.where(take, newton[0], irls[0]), np.where(take, newton[1], irls[1])
        moved = np.maximum(np.abs(nu - u) / (1 + np.abs(nu)), np.abs(nv - v) / (1 + np.abs(nv)))
        u, v = nu, nv
        if np.all(moved <= tol):
            break
    return u * s_lam, np.maximum(v * s_beta, 1.0 / max_bandwidth)
