"""Fitting the Hockney model t(n) = λ + n/b to measured times (scipy).

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

Piecewise fits: BIC to describe, AIC to predict
    :func:`fit_piecewise` finds size ranges with their own (λ, b): for k = 1..max_segments it
    finds the split points between measured sizes that minimise the total squared relative
    residual (exact search by dynamic programming over every admissible split; each segment
    needs ``min_points`` distinct sizes), then chooses k by an information criterion on the
    relative residuals (Gaussian relative errors with a common variance; each segment has 2
    parameters and each of the k - 1 breakpoints counts as one more, p = 3k - 1):

        BIC(k) = N ln(RSS_k / N) + p ln N       (default)
        AIC(k) = N ln(RSS_k / N) + 2 p          (PREDICTIVE)

    BIC's ln N penalty is the stricter: a new segment must explain a real jump, not the noise
    of a few points, which is what a reader wants when asking "where does the protocol
    switch?". AIC estimates the out-of-sample error instead, so it is the criterion for
    *predicting* sizes that were not measured. On the ORFEO ping-pong curves (fit on the even
    sizes, predict the odd ones: ``commbook validate pingpong``) the default (BIC, at most 3
    segments of 3 sizes) leaves about 20 % of the curves above 10 % median error, PREDICTIVE
    (AIC, up to 6 segments of 2 sizes, breakpoints at the crossing) about 2 %, better than
    log-log interpolation between the same points. On a clean synthetic straight line AIC
    may still split off a segment: use the default to describe, PREDICTIVE to predict.

Where one segment ends
    Between the last measured size a of one segment and the first c of the next nothing was
    measured. gap="measured" ends the lower segment at a. gap="crossing" puts the breakpoint
    where the two lines cross when they cross in the gap, else gives the whole gap to the line
    that is lower there: a well-tuned library switches protocol where the other one becomes
    faster. On held-out ORFEO sizes "crossing" is the better guess.

Confidence intervals
    :func:`bootstrap_ci` refits resampled data: whole points when each size was measured once,
    or repetitions within each size when every size was measured several times (several rows
    with the same size). Percentile intervals for λ, b and n½ = λ·b.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import least_squares, nnls

from .models.hockney import Hockney, PiecewiseHockney, Segment
from .units import format_bytes

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


# ---------------------------------------------------------------------------------------
# One Hockney line


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


@dataclass
class BootstrapCI:
    """Percentile intervals from refits of resampled data."""

    lambda_us: tuple[float, float]
    bandwidth_MBps: tuple[float, float]
    n_half_bytes: tuple[float, float]
    level: float
    n_boot: int  # refits that succeeded
    n_failed: int  # resamples that could not be fitted (e.g. one distinct size)
    method: str  # "points" or "repetitions"
    seed: int | None

    def to_dict(self) -> dict:
        return {
            "lambda_us": list(self.lambda_us),
            "bandwidth_MBps": list(self.bandwidth_MBps),
            "n_half_bytes": list(self.n_half_bytes),
            "level": self.level,
            "n_boot": self.n_boot,
            "n_failed": self.n_failed,
            "method": self.method,
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "BootstrapCI":
        return cls(
            tuple(d["lambda_us"]),
            tuple(d["bandwidth_MBps"]),
            tuple(d["n_half_bytes"]),
            float(d["level"]),
            int(d["n_boot"]),
            int(d.get("n_failed", 0)),
            str(d["method"]),
            d.get("seed"),
        )


@dataclass
class HockneyFit(_ModelResult):
    """A fitted Hockney line with its confidence intervals and how well it fits."""

    model: Hockney
    n_points: int
    n_sizes: int
    size_range: tuple[int, int]  # smallest and largest size the fit saw
    rms_rel: float  # root mean square relative residual
    max_rel: float  # largest |relative residual|
    median_abs_rel: float
    loss: str = DEFAULT_LOSS
    f_scale: float = DEFAULT_F_SCALE
    ci: BootstrapCI | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def lambda_us(self) -> float:
        return self.model.lambda_us

    @property
    def bandwidth_MBps(self) -> float:
        return self.model.bandwidth_MBps

    @property
    def n_half(self) -> float:
        return self.model.n_half

    def to_dict(self) -> dict:
        d = self.model.to_dict()
        d["fit"] = {
            "method": "least squares on relative error",
            "loss": self.loss,
            "f_scale": self.f_scale,
            "n_points": self.n_points,
            "n_sizes": self.n_sizes,
            "size_range": list(self.size_range),
            "rms_rel": self.rms_rel,
            "max_rel": self.max_rel,
            "median_abs_rel": self.median_abs_rel,
            "ci": self.ci.to_dict() if self.ci else None,
            "warnings": self.warnings,
        }
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "HockneyFit":
        f = d.get("fit") or {}
        try:
            return cls(
                Hockney.from_dict(d),
                int(f["n_points"]),
                int(f["n_sizes"]),
                tuple(int(v) for v in f["size_range"]),
                float(f["rms_rel"]),
                float(f["max_rel"]),
                float(f["median_abs_rel"]),
                str(f["loss"]),
                float(f["f_scale"]),
                BootstrapCI.from_dict(f["ci"]) if f.get("ci") else None,
                list(f.get("warnings", [])),
            )
        except (KeyError, TypeError) as e:
            raise ValueError(f"fit record incomplete: missing or bad {e}") from None

    def summary(self) -> str:
        return _describe_line(self, indent="")


def _bound_warnings(lam, beta, n, t, max_bandwidth) -> list[str]:
    out = []
    if lam <= 1e-9 * float(np.min(t)):
        out.append(
            "latency hit its lower bound 0: these sizes do not determine λ "
            "(transfer time dominates them; small messages, down to 0 B, fix λ)"
        )
    if beta <= (1 + 1e-6) / max_bandwidth:
        out.append(
            f"bandwidth hit its upper bound {max_bandwidth:g} MB/s: these sizes do not "
            f"determine b (the times are flat; include larger messages)"
        )
    return out


def fit_hockney(
    sizes,
    times,
    *,
    loss: str = DEFAULT_LOSS,
    f_scale: float = DEFAULT_F_SCALE,
    n_boot: int = 500,
    seed: int | None = 0,
    level: float = 0.95,
    max_bandwidth_MBps: float = MAX_BANDWIDTH_MBPS,
) -> HockneyFit:
    """Fit t = λ + n/b by robust least squares on relative error, λ ≥ 0 and b > 0.

    sizes in bytes, times in µs (one row per point; repeated sizes are repetitions). n_boot
    refits of resampled data give the confidence intervals (0: none).
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, not {loss!r}")
    if not f_scale > 0:
        raise ValueError(f"f_scale must be > 0, not {f_scale}")
    if not max_bandwidth_MBps > 0:
        raise ValueError(f"max_bandwidth_MBps must be > 0, not {max_bandwidth_MBps}")
    n, t = check_data(sizes, times)
    lam, beta = _fit_params(n, t, loss, f_scale, max_bandwidth_MBps)
    model = Hockney(lam, 1.0 / beta)
    r = (model.time_us(n) - t) / t
    ci = None
    if n_boot:
        ci = bootstrap_ci(
            n,
            t,
            n_boot=n_boot,
            seed=seed,
            level=level,
            loss=loss,
            f_scale=f_scale,
            max_bandwidth_MBps=max_bandwidth_MBps,
        )
    return HockneyFit(
        model,
        int(n.size),
        int(np.unique(n).size),
        (int(n.min()), int(n.max())),
        **_quality(r),
        loss=loss,
        f_scale=f_scale,
        ci=ci,
        warnings=_bound_warnings(lam, beta, n, t, max_bandwidth_MBps),
    )


def _resample_groups(n: np.ndarray, method: str):
    """Index groups for the bootstrap: one group of all points, or one group per size."""
    if method == "points":
        return [np.arange(n.size)]
    _, inverse = np.unique(n, return_inverse=True)
    return [np.nonzero(inverse == g)[0] for g in range(inverse.max() + 1)]


def bootstrap_ci(
    sizes,
    times,
    *,
    n_boot: int = 500,
    seed: int | None = 0,
    level: float = 0.95,
    method: str = "auto",
    loss: str = DEFAULT_LOSS,
    f_scale: float = DEFAULT_F_SCALE,
    max_bandwidth_MBps: float = MAX_BANDWIDTH_MBPS,
) -> BootstrapCI:
    """Percentile bootstrap intervals for λ, b and n½.

    method "points" resamples (size, time) pairs; "repetitions" resamples the rows of each size
    among themselves (every size keeps its place, only its measured spread varies); "auto"
    picks repetitions when every size has at least two rows.
    """
    n, t = check_data(sizes, times)
    if not 1 <= int(n_boot) <= MAX_BOOT:
        raise ValueError(f"n_boot must be between 1 and {MAX_BOOT:,}, not {n_boot}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level}")
    counts = np.unique(n, return_counts=True)[1]
    if method == "auto":
        method = "repetitions" if counts.min() >= 2 else "points"
    if method not in ("points", "repetitions"):
        raise ValueError(f"method must be 'auto', 'points' or 'repetitions', not {method!r}")
    if method == "repetitions" and counts.min() < 2:
        raise ValueError("resampling repetitions needs at least two rows for every size")
    rng = np.random.default_rng(seed)
    groups = _resample_groups(n, method)
    lams, betas, failed = [], [], 0
    for _ in range(int(n_boot)):
        idx = np.concatenate([g[rng.integers(0, g.size, g.size)] for g in groups])
        nb, tb = n[idx], t[idx]
        if np.unique(nb).size < 2:
            failed += 1
            continue
        lam, beta = _fit_params(nb, tb, loss, f_scale, max_bandwidth_MBps)
        lams.append(lam)
        betas.append(beta)
    if not lams:
        raise ValueError("no bootstrap resample could be fitted (too few distinct sizes)")
    lams, bws = np.array(lams), 1.0 / np.array(betas)
    q = [50 * (1 - level), 50 * (1 + level)]

    def interval(x):
        lo, hi = np.percentile(x, q)
        return float(lo), float(hi)

    return BootstrapCI(
        interval(lams), interval(bws), interval(lams * bws), float(level), len(lams), failed, method, seed
    )


@dataclass(frozen=True)
class LinearFit:
    """An unconstrained straight line t = λ + n/b from ordinary least squares (may be unphysical)."""

    lambda_us: float
    bandwidth_MBps: float

    def time_us(self, sizes):
        return self.lambda_us + np.asarray(sizes, float) / self.bandwidth_MBps


def ols_hockney(sizes, times) -> LinearFit:
    """Plain least squares on absolute time, no bounds: what the seed reports did.

    Kept to show why it fails: the largest messages decide λ, which can come out negative.
    """
    n, t = check_data(sizes, times)
    slope, intercept = np.polyfit(n, t, 1)
    if slope <= 0:
        raise ValueError("ordinary least squares gives a non-positive slope: no bandwidth")
    return LinearFit(float(intercept), float(1.0 / slope))


# ---------------------------------------------------------------------------------------
# Piecewise


@dataclass
class PiecewiseFit(_ModelResult):
    """Segments found from the data, one HockneyFit each, and the BIC of every candidate k."""

    model: PiecewiseHockney
    segments: list[HockneyFit]
    bic: dict[int, float]  # number of segments -> information criterion (see criterion)
    n_points: int
    rms_rel: float
    max_rel: float
    min_points: int = 3
    criterion: str = "bic"

    @property
    def n_segments(self) -> int:
        return len(self.segments)

    @property
    def breakpoints(self) -> list[int]:
        return self.model.breakpoints

    def to_dict(self) -> dict:
        d = self.model.to_dict()
        d["fit"] = {
            "method": f"piecewise least squares on relative error, segments by {self.criterion.upper()}",
            "criterion": self.criterion,
            "bic": {str(k): v for k, v in self.bic.items()},
            "n_points": self.n_points,
            "rms_rel": self.rms_rel,
            "max_rel": self.max_rel,
            "min_points": self.min_points,
            "segments": [s.to_dict()["fit"] for s in self.segments],
        }
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "PiecewiseFit":
        model = PiecewiseHockney.from_dict(d)
        f = d.get("fit") or {}
        try:
            segs = [
                HockneyFit.from_dict({**s.model.to_dict(), "fit": sf})
                for s, sf in zip(model.segments, f["segments"], strict=True)
            ]
            return cls(
                model,
                segs,
                {int(k): float(v) for k, v in f["bic"].items()},
                int(f["n_points"]),
                float(f["rms_rel"]),
                float(f["max_rel"]),
                int(f.get("min_points", 3)),
                str(f.get("criterion", "bic")),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"piecewise fit record incomplete: {e}") from None

    def summary(self) -> str:
        chosen = self.n_segments
        bic = ", ".join(f"{k}: {v:.1f}{' (chosen)' if k == chosen else ''}" for k, v in sorted(self.bic.items()))
        lines = [f"piecewise Hockney fit, {chosen} segment(s); {self.criterion.upper()} by number of segments: {bic}"]
        for i, (seg, f) in enumerate(zip(self.model.segments, self.segments), start=1):
            hi = "and up" if seg.max_bytes is None else f"to {format_bytes(seg.max_bytes, exact=True)}"
            lines.append(
                f"segment {i}: {format_bytes(seg.min_bytes, exact=True)} {hi} "
                f"(fitted on {format_bytes(f.size_range[0], exact=True)} .. "
                f"{format_bytes(f.size_range[1], exact=True)}, {f.n_points} points)"
            )
            lines.append(_describe_line(f, indent="  "))
        lines.append(
            f"overall: rms relative residual {self.rms_rel:.1%}, max {self.max_rel:.1%} over {self.n_points} points"
        )
        return "\n".join(lines)


def _segment_rss(n, t, loss, f_scale, max_bw):
    lam, beta = _fit_params(n, t, loss, f_scale, max_bw)
    r = (lam + beta * n) / t - 1.0
    return float(np.sum(r**2))


def bic(rss: float, n_points: int, n_segments: int) -> float:
    """BIC for k segments on relative residuals: 2 parameters per segment + k-1 breakpoints."""
    rss = max(rss, n_points * 1e-12)  # an exact fit would give ln 0
    return n_points * math.log(rss / n_points) + (3 * n_segments - 1) * math.log(n_points)


def aic(rss: float, n_points: int, n_segments: int) -> float:
    """AIC for k segments on relative residuals: 2 parameters per segment + k-1 breakpoints."""
    rss = max(rss, n_points * 1e-12)
    return n_points * math.log(rss / n_points) + 2 * (3 * n_segments - 1)


CRITERIA = {"aic": aic, "bic": bic}
# fit_piecewise(..., **PREDICTIVE): the setting for predicting sizes that were not measured
PREDICTIVE = dict(max_segments=6, min_points=2, criterion="aic", gap="crossing")


def _gap_breakpoint(a: float, c: float, low: Hockney, high: Hockney) -> int:
    """Last size of the lower segment, in [a, c - 1]: where the lines cross in the gap (a, c),
    else the end that gives the whole gap to the line that is lower at its geometric middle."""
    a, c = int(a), int(c)
    d_beta = 1 / low.bandwidth_MBps - 1 / high.bandwidth_MBps
    if d_beta > 0:  # the lower segment's line is the steeper: it is faster before the crossing
        cross = (high.lambda_us - low.lambda_us) / d_beta
        if a <= cross < c - 1:
            return int(math.floor(cross))
    mid = math.sqrt(max(a, 1) * c)
    return c - 1 if low.time_us(mid) <= high.time_us(mid) else a


def fit_piecewise(
    sizes,
    times,
    max_segments: int = 3,
    *,
    min_points: int = 3,
    criterion: str = "bic",
    gap: str = "measured",
    loss: str = DEFAULT_LOSS,
    f_scale: float = DEFAULT_F_SCALE,
    n_boot: int = 500,
    seed: int | None = 0,
    level: float = 0.95,
    max_bandwidth_MBps: float = MAX_BANDWIDTH_MBPS,
) -> PiecewiseFit:
    """Fit 1..max_segments Hockney segments with data-chosen breakpoints; keep the k with the
    best information criterion ("bic" or "aic", see the module docstring).

    Each segment covers at least min_points distinct sizes. A breakpoint lies between two
    measured sizes a < c: with gap "measured" the lower segment ends at a (inclusive), with gap
    "crossing" at the size in [a, c-1] where the lines cross (see _gap_breakpoint).
    The defaults describe a curve (which regimes does it have?); ``**PREDICTIVE`` is the
    setting that predicts unmeasured sizes best (see the module docstring).
    """
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {sorted(CRITERIA)}, not {criterion!r}")
    if gap not in ("measured", "crossing"):
        raise ValueError(f"gap must be 'measured' or 'crossing', not {gap!r}")
    if int(max_segments) < 1:
        raise ValueError(f"max_segments must be at least 1, not {max_segments}")
    if int(min_points) < 2:
        raise ValueError(f"min_points must be at least 2 (two parameters per segment), not {min_points}")
    n, t = check_data(sizes, times)
    order = np.argsort(n, kind="stable")
    n, t = n[order], t[order]
    uniq, start = np.unique(n, return_index=True)
    m = uniq.size
    bounds = list(start) + [n.size]  # rows of distinct size j are bounds[j]:bounds[j+1]
    if m > MAX_PIECEWISE_SIZES:  # the breakpoint search fits O(m^2) segments
        raise ValueError(
            f"{m} different sizes: a piecewise fit takes at most {MAX_PIECEWISE_SIZES} (select a range of sizes)"
        )
    k_max = min(int(max_segments), m // int(min_points))
    if k_max < 1:
        raise ValueError(f"need at least {min_points} different sizes, got {m}")

    # cost[i][j]: squared relative residual of one segment over distinct sizes i..j-1
    cost = {}
    for i in range(m):
        for j in range(i + min_points, m + 1):
            a, b = bounds[i], bounds[j]
            cost[i, j] = (
                _segment_rss(n[a:b], t[a:b], loss, f_scale, max_bandwidth_MBps)
                if np.unique(n[a:b]).size >= 2
                else math.inf
            )
    # best[k][j]: least cost of k segments covering sizes 0..j-1; back[k][j]: last split
    best = [{0: 0.0}] + [dict() for _ in range(k_max)]
    back = [dict() for _ in range(k_max + 1)]
    for k in range(1, k_max + 1):
        for j in range(k * min_points, m + 1):
            cands = [(best[k - 1][i] + cost[i, j], i) for i in best[k - 1] if (i, j) in cost]
            if cands:
                best[k][j], back[k][j] = min(cands)
    scores = {k: CRITERIA[criterion](best[k][m], n.size, k) for k in range(1, k_max + 1) if m in best[k]}
    k = min(scores, key=lambda q: (scores[q], q))
    cuts, j = [], m
    for kk in range(k, 0, -1):
        i = back[kk][j]
        cuts.append((i, j))
        j = i
    cuts.reverse()

    fits, segs = [], []
    for s, (i, j) in enumerate(cuts):
        a, b = bounds[i], bounds[j]
        f = fit_hockney(
            n[a:b],
            t[a:b],
            loss=loss,
            f_scale=f_scale,
            n_boot=n_boot,
            seed=None if seed is None else seed + s,
            level=level,
            max_bandwidth_MBps=max_bandwidth_MBps,
        )
        fits.append(f)
    ends = [
        _gap_breakpoint(uniq[i - 1], uniq[i], fits[s].model, fits[s + 1].model)
        if gap == "crossing"
        else int(uniq[i - 1])
        for s, (i, _) in enumerate(cuts[1:])
    ]
    starts = [0] + [e + 1 for e in ends]
    segs = [Segment(lo, hi, f.model) for lo, hi, f in zip(starts, ends + [None], fits)]
    model = PiecewiseHockney(tuple(segs))
    r = (model.time_us(n) - t) / t
    q = _quality(r)
    return PiecewiseFit(model, fits, scores, int(n.size), q["rms_rel"], q["max_rel"], int(min_points), criterion)


# ---------------------------------------------------------------------------------------
# Tables and text


def sizes_times(table, time_column: str = "t_us") -> tuple[np.ndarray, np.ndarray]:
    """Sizes and times from a tidy table (commbook.data schema), ready for the fits."""
    for c in ("size_bytes", time_column):
        if c not in table.columns:
            raise ValueError(f"table has no '{c}' column")
    return table["size_bytes"].to_numpy(float), table[time_column].to_numpy(float)


def _ci_text(ci, fmt) -> str:
    return f"  [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else ""


def _describe_line(f: HockneyFit, indent="") -> str:
    ci = f.ci
    lvl = f"; [{ci.level:.0%} bootstrap CI, {ci.n_boot} resamples of {ci.method}]" if ci else ""
    lines = [
        f"{indent}latency   λ  = {f.lambda_us:.4g} µs{_ci_text(ci and ci.lambda_us, '{:.4g}'.format)}",
        f"{indent}bandwidth b  = {f.bandwidth_MBps:.5g} MB/s{_ci_text(ci and ci.bandwidth_MBps, '{:.5g}'.format)}",
        f"{indent}n½ = λ·b     = {f.n_half:.4g} B{_ci_text(ci and ci.n_half_bytes, '{:.4g}'.format)}",
        f"{indent}fit: relative residual rms {f.rms_rel:.1%}, max {f.max_rel:.1%} "
        f"({f.loss} loss, {f.n_points} points){lvl}",
    ]
    lines += [f"{indent}warning: {w}" for w in f.warnings]
    return "\n".join(lines)


def calibrate_link_classes(table, algorithm: str = "default") -> dict:
    """{'core': (lambda_us, b_MBps), 'socket': ..., 'node': ...} fitted (commbook.fit, Hockney on
    relative error) to the P = 2 rows of a broadcast table, one fit per mapping: with two
    processes a broadcast is one message over the link class that the mapping gives them
    (map by core: two cores of a socket; socket: across sockets; node: across nodes)."""
    out = {}
    for mapping in ("core", "socket", "node"):
        rows = table[
            (table.np == 2) & (table.mapping == mapping) & (table.algorithm == algorithm) & (table.size_bytes > 0)
        ]
        if rows.size_bytes.nunique() < 3:
            raise ValueError(f"need P = 2 {algorithm} rows of at least 3 sizes mapped by {mapping}")
        h = fit_hockney(rows.size_bytes.to_numpy(float), rows.t_us.to_numpy(float), n_boot=0)
        out[mapping] = (float(h.lambda_us), float(h.bandwidth_MBps))
    return out
