"""Measuring well (book/measuring.md): the experiments of the methodology chapter, run with
kernels_c/examples/measuring.c (every repetition's own time), and their statistics: summaries,
the nonparametric confidence interval of the median, and the verdicts the page words."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import kernels, mpi_env
from ...verdict import Verdict, cases

KERNEL = "examples/measuring"


def binding_args(policy: str) -> tuple:
    """mpiexec arguments that bind every rank to one `policy` ("core") or leave it free ("none")."""
    if policy not in ("core", "none", "socket", "hwthread"):
        raise ValueError(f"binding policy must be core, none, socket or hwthread, not {policy!r}")
    flag = mpi_env.detect().family.bind_to_flag
    return (flag, policy)


def run(
    experiment: str, np_: int = 2, launcher_args: tuple = (), timeout: float = 300.0, **options
) -> kernels.KernelOutput:
    """One run of the measuring kernel (timer, pingpong or bcast), one row per repetition."""
    return kernels.run_mpiexec(
        KERNEL, np_, {"experiment": experiment, **options}, timeout=timeout, launcher_args=launcher_args
    )


def bindings(out: kernels.KernelOutput) -> dict:
    """{rank: the CPUs it was allowed to run on} as the kernel printed them."""
    return {int(k.removeprefix("cpus_rank")): v for k, v in out.meta.items() if k.startswith("cpus_rank")}


def is_bound(out: kernels.KernelOutput) -> bool:
    """True when every rank was pinned to CPUs no other rank may use."""
    cpus = list(bindings(out).values())
    return len(set(cpus)) == len(cpus) and all("," not in c and "-" not in c for c in cpus)


def times(out: kernels.KernelOutput, column: str = "t_us") -> np.ndarray:
    return out.table[column].to_numpy(float)


# ------------------------------------------------------------------------- statistics


def median_ci(x, level: float = 0.95) -> tuple[float, float]:
    """Nonparametric confidence interval of the median: two order statistics chosen from the
    binomial distribution of how many samples fall below it (Le Boudec; Hoefler & Belli's
    rule for non-normal data). Needs enough samples for the level (6 for 95 %)."""
    from scipy.stats import binom

    x = np.sort(np.asarray(x, float))
    n = len(x)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), not {level}")
    j = int(binom.ppf((1 - level) / 2, n, 0.5))  # P(fewer than j below the median) < alpha/2
    if j < 1:
        raise ValueError(f"{n} samples are too few for a {level:.0%} interval of the median")
    return float(x[j - 1]), float(x[n - j])


def median_ci_ranks(n: int, level: float = 0.95) -> tuple[int, int]:
    """The order statistics (counted from 1) that bound the median's interval for n samples."""
    from scipy.stats import binom

    j = int(binom.ppf((1 - level) / 2, n, 0.5))
    if j < 1:
        raise ValueError(f"{n} samples are too few for a {level:.0%} interval of the median")
    return j, n - j + 1


@dataclass
class Summary:
    n: int
    min: float
    median: float
    mean: float
    p99: float
    max: float
    ci_low: float
    ci_high: float

    @property
    def ci_halfwidth_pct(self) -> float:
        """Half the 95 % interval's width, in % of the median."""
        return 50 * (self.ci_high - self.ci_low) / self.median


def summarise(x, level: float = 0.95) -> Summary:
    x = np.asarray(x, float)
    lo, hi = median_ci(x, level)
    return Summary(
        len(x),
        float(x.min()),
        float(np.median(x)),
        float(x.mean()),
        float(np.percentile(x, 99)),
        float(x.max()),
        lo,
        hi,
    )


@cases("a_faster", "b_faster", "overlap")
def compare(a, b, level: float = 0.95) -> Verdict:
    """Two samples' medians: one is faster only when their confidence intervals do not overlap.
    Numbers: both medians, both intervals and the slower median over the faster."""
    sa, sb = summarise(a, level), summarise(b, level)
    numbers = {
        "a_median": sa.median,
        "b_median": sb.median,
        "a_low": sa.ci_low,
        "a_high": sa.ci_high,
        "b_low": sb.ci_low,
        "b_high": sb.ci_high,
        "ratio": max(sa.median, sb.median) / min(sa.median, sb.median),
    }
    if sa.ci_high < sb.ci_low:
        return Verdict("a_faster", numbers)
    if sb.ci_high < sa.ci_low:
        return Verdict("b_faster", numbers)
    return Verdict("overlap", numbers)


CLOSE = 0.05  # a mean this near the median (relative) is "close"


@cases("far_above", "above", "close", "below")
def mean_side(s: Summary) -> Verdict:
    """Where the mean of all repetitions lies against their median (within 5 % is close)."""
    r = s.mean / s.median
    numbers = {"ratio": r, "pct": 100 * abs(r - 1), "band_pct": 100 * CLOSE}
    if r > 2:
        return Verdict("far_above", numbers)
    if r > 1 + CLOSE:
        return Verdict("above", numbers)
    if r < 1 - CLOSE:
        return Verdict("below", numbers)
    return Verdict("close", numbers)


# ------------------------------------------------------------------------- experiments


def interleaved(configs: dict, rounds: int = 3, **common) -> dict:
    """Run every configuration `rounds` times, alternating (a slow minute of the machine then
    hurts all of them alike); {name: [one array of repetition times per round]}.
    configs: {name: (np, launcher_args)}."""
    got = {k: [] for k in configs}
    for _ in range(rounds):
        for name, (np_, args) in configs.items():
            got[name].append(times(run("pingpong", np_, args, **common)))
    return got


def pooled(rounds: dict) -> dict:
    """{name: all rounds' times in one array}."""
    return {k: np.concatenate(v) for k, v in rounds.items()}


@cases("rounds_steadier", "rounds_apart", "rounds_wider")
def rounds_spread(rounds: dict) -> Verdict:
    """Every round of two configurations {name: [times of each round]}, in the order given (a,
    b): the lowest and highest round median of each, and whether the rounds of one configuration
    differ (highest over lowest round median, minus 1) by less than half as much as the two
    configurations' pooled medians do (steadier). If not, whether the two ranges of round medians
    still do not overlap, every round of one faster than every round of the other (apart: the
    wide rounds are then the slower configuration's own, not the machine's other work), or
    overlap (wider)."""
    (a, ra), (b, rb) = rounds.items()
    ma, mb = [float(np.median(r)) for r in ra], [float(np.median(r)) for r in rb]
    between = max(np.median(np.concatenate(ra)), np.median(np.concatenate(rb))) / min(
        np.median(np.concatenate(ra)), np.median(np.concatenate(rb))
    )
    within = max(max(ma) / min(ma), max(mb) / min(mb))
    numbers = {
        "rounds": len(ma),
        "a_low": min(ma),
        "a_high": max(ma),
        "b_low": min(mb),
        "b_high": max(mb),
        "within": within,
        "between": float(between),
    }
    # compared as excesses over 1: rounds 10 % apart against configurations 80 % apart are steadier
    if 2 * (within - 1) < between - 1:
        return Verdict("rounds_steadier", numbers)
    apart = max(ma) < min(mb) or max(mb) < min(ma)
    return Verdict("rounds_apart" if apart else "rounds_wider", numbers)


def times_text(x: float) -> str:
    """A factor to two significant figures, written out (13,000 and 1.6, never 1.3e+04)."""
    r = float(f"{x:.2g}")
    return f"{r:,.0f}" if abs(r) >= 100 else f"{r:g}"


def warmup_effect(cold, n_first: int = 3) -> tuple[float, float]:
    """(mean of the first n_first repetitions, median of the rest) of a run without warm-up."""
    cold = np.asarray(cold, float)
    return float(cold[:n_first].mean()), float(np.median(cold[n_first:]))


@cases("cold_only", "both", "warm_slower", "warm_only", "neither")
def warmup(cold, warm, n_first: int = 3) -> Verdict:
    """The first n_first repetitions of a run without warm-up and of one after it, each against
    the median of its other repetitions: slow when their mean is over 1.5 times that median.
    Both slow: warm_slower when the start after warm-up is the slower by that measure."""
    cf, cr = warmup_effect(cold, n_first)
    wf, wr = warmup_effect(warm, n_first)
    numbers = {
        "n_first": n_first,
        "cold_first": cf,
        "cold_rest": cr,
        "cold_factor": cf / cr,
        "warm_first": wf,
        "warm_rest": wr,
        "warm_factor": wf / wr,
        "cold_times": times_text(cf / cr),
        "warm_times": times_text(wf / wr),
    }
    slow_cold, slow_warm = cf > 1.5 * cr, wf > 1.5 * wr
    case = {(True, False): "cold_only", (True, True): "both", (False, True): "warm_only"}.get(
        (slow_cold, slow_warm), "neither"
    )
    if case == "both" and wf / wr > cf / cr:
        case = "warm_slower"
    return Verdict(case, numbers)


SHARED_LOAD = 0.25  # a 1-minute load average from here on: other programs share the cores


@cases("unknown", "busy", "shared", "idle")
def load(load_average, cores: int) -> Verdict:
    """The 1-minute load average at the start against the cores: busy at or above their number,
    shared from SHARED_LOAD, idle below."""
    try:
        value = float(load_average)
    except (TypeError, ValueError):
        return Verdict("unknown", {"load": 0.0, "cores": cores, "threshold": SHARED_LOAD})
    numbers = {"load": value, "cores": cores}
    numbers["threshold"] = SHARED_LOAD
    return Verdict("busy" if value >= cores else "shared" if value >= SHARED_LOAD else "idle", numbers)


@cases("oversubscribed", "a_core_each")
def oversubscription(cores: int, processes: int) -> Verdict:
    """Whether `processes` ranks outnumber this machine's cores."""
    numbers = {"cores": cores, "processes": processes}
    return Verdict("oversubscribed" if processes > cores else "a_core_each", numbers)


def collective_reading(out: kernels.KernelOutput) -> dict:
    """Medians over repetitions of the slowest rank's time and of the mean over ranks."""
    return {
        "max_over_ranks": float(np.median(times(out, "t_max_us"))),
        "mean_over_ranks": float(np.median(times(out, "t_mean_us"))),
        "min_over_ranks": float(np.median(times(out, "t_min_us"))),
    }


def orfeo_run_spread(machine: str = "orfeo-thin", dataset: str = "matteoscorcia/pingpong"):
    """ORFEO ping-pong repeated over several runs (jobs): per size, max/min over the runs of the
    per-run times, median over configurations; rows with one run are left out."""
    from ... import orfeo

    df = orfeo.load(dataset)[0]
    df = df[(df.machine == machine) & (df.runs > 1)].copy()
    df["spread"] = df.t_max_us / df.t_min_us
    return df, df.groupby("size_bytes").spread.median()


SPREAD_SMALL_MAX, SPREAD_LARGE_MIN = 1024, 2**20  # bytes: the page's small and large messages


def orfeo_spreads() -> tuple[float, float]:
    """% by which the slowest ORFEO run exceeds the fastest: median over the sizes up to
    SPREAD_SMALL_MAX, and over those from SPREAD_LARGE_MIN."""
    spread = orfeo_run_spread()[1]
    small = spread[spread.index <= SPREAD_SMALL_MAX].median()
    large = spread[spread.index >= SPREAD_LARGE_MIN].median()
    return float(100 * (small - 1)), float(100 * (large - 1))


# ------------------------------------------------------------------------- figures


def plot_distribution(t_us, title="8-byte ping-pong repetitions", ax=None):
    """Histogram of repetition times (log x) with min, median and mean marked."""
    import matplotlib.pyplot as plt

    from ...plotting import label_axes

    t = np.asarray(t_us, float)
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 3.8))
    s = summarise(t)
    top = min(t.max(), max(np.percentile(t, 99.5) * 1.5, s.mean * 1.3))  # a lone outlier must
    shown = t[t <= top]  # not squash the rest
    bins = np.geomspace(t.min() * 0.95, top * 1.05, 60)
    beyond = len(t) - len(shown)
    ax.hist(
        shown,
        bins=bins,
        color="C0",
        alpha=0.7,
        label=f"{len(t)} repetitions (measured)"
        + ("; " + str(beyond) + " off-axis, max " + f"{t.max():.3g} µs" if beyond else ""),
    )
    ax.set_xscale("log")
    for value, name, style in ((s.min, "min", ":"), (s.median, "median", "-"), (s.mean, "mean", "--")):
        ax.axvline(value, color="k", ls=style, lw=1.2, label=f"{name} {value:.3g} µs")
    ax.axvspan(s.ci_low, s.ci_high, color="C1", alpha=0.3, label="95 % interval of the median")
    label_axes(ax, title, "repetition time (µs, log)", "repetitions")
    ax.legend(fontsize=7, loc="upper right")
    return ax.figure


def plot_first_repetitions(series: dict, n: int = 30, title="The first repetitions"):
    """Each run's first n repetition times: {label: times}."""
    import matplotlib.pyplot as plt

    from ...plotting import SERIES_COLORS, label_axes

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for i, (label, t) in enumerate(series.items()):
        t = np.asarray(t, float)[:n]
        ax.plot(
            np.arange(1, len(t) + 1),
            t,
            marker="o",
            ms=4,
            label=f"{label} (measured)",
            color=SERIES_COLORS[i % len(SERIES_COLORS)],
        )
    ax.set_yscale("log")
    label_axes(ax, title, "repetition", "time (µs, log scale)", legend=True)
    return fig


def plot_samples(samples: dict, title: str, ylabel: str = "repetition time (µs)"):
    """Box plots of several samples side by side (log y): {label: times}."""
    import matplotlib.pyplot as plt

    from ...plotting import label_axes

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ax.boxplot(
        [np.asarray(v, float) for v in samples.values()],
        whis=(1, 99),
        showfliers=True,
        flierprops=dict(ms=2, alpha=0.4),
    )
    ax.set_xticks(range(1, len(samples) + 1), list(samples))
    ax.set_yscale("log")
    label_axes(ax, title, "box: quartiles; whiskers: 1-99 %", ylabel + ", log scale")
    ax.xaxis.set_label_position("bottom")
    ax.set_xlabel(ax.get_xlabel(), fontsize=8)
    return fig
