"""Bootstrap confidence intervals of a Hockney fit.

Confidence intervals
    :func:`bootstrap_ci` refits resampled data: whole points when each size was measured once,
    or repetitions within each size when every size was measured several times (several rows
    with the same size). Percentile intervals for λ, b and n½ = λ·b.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .relative_error import (
    DEFAULT_F_SCALE,
    DEFAULT_LOSS,
    MAX_BANDWIDTH_MBPS,
    MAX_BOOT,
    _fit_params,
    _soft_l1_params_weighted,
    check_data,
)


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
    resamples = [np.concatenate([g[rng.integers(0, g.size, g.size)] for g in groups]) for _ in range(int(n_boot))]
    fitted = [idx for idx in resamples if np.unique(n[idx]).size >= 2]
    failed = len(resamples) - len(fitted)
    if loss == "soft_l1" and fitted:  # every refit at once: each resample is its points' counts
        counts = np.stack([np.bincount(idx, minlength=n.size) for idx in fitted])
        lams, betas = _soft_l1_params_weighted(n, t, counts, f_scale, max_bandwidth_MBps)
        lams, betas = list(lams), list(betas)
    else:
        lams, betas = [], []
        for idx in fitted:
            lam, beta = _fit_params(n[idx], t[idx], loss, f_scale, max_bandwidth_MBps)
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
