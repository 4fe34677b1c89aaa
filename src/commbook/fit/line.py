"""One Hockney line fitted to measured times: the robust relative-error fit with its bootstrap
intervals (`fit_hockney`), the plain least squares the seed reports used (`ols_hockney`), the
link classes of a broadcast table (`calibrate_link_classes`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..models.hockney import Hockney
from .bootstrap import BootstrapCI, bootstrap_ci
from .relative_error import (
    DEFAULT_F_SCALE,
    DEFAULT_LOSS,
    LOSSES,
    MAX_BANDWIDTH_MBPS,
    _fit_params,
    _ModelResult,
    _quality,
    check_data,
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
