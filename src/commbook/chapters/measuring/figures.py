"""Measuring well (book/measuring.md): the experiments of the methodology chapter, run with
kernels_c/examples/measuring.c (every repetition's own time), and their statistics: summaries,
the nonparametric confidence interval of the median, comparisons whose verdict is computed."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import kernels, mpi_env

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


def compare(a, b, name_a: str, name_b: str, level: float = 0.95) -> str:
    """A verdict on two samples' medians that never says more than the data show: a difference
    only when their confidence intervals do not overlap."""
    sa, sb = summarise(a, level), summarise(b, level)
    if sa.ci_high < sb.ci_low or sb.ci_high < sa.ci_low:
        faster, slower = (name_a, name_b) if sa.median < sb.median else (name_b, name_a)
        ratio = max(sa.median, sb.median) / min(sa.median, sb.median)
        return (
            f"{faster} is faster: its median is {ratio:.3g} times smaller than that of "
            f"{slower}, and the {level:.0%} intervals of the two medians do not overlap"
        )
    return f"the {level:.0%} intervals of the two medians overlap: this run cannot tell {name_a} from {name_b}"


def mean_vs_median(s: Summary) -> str:
    """Which way the mean leans, in words."""
    r = s.mean / s.median
    if r > 2:
        return f"{r:.0f} times the median: a few very slow repetitions pull it up"
    if r > 1.05:
        return f"above the median by {100 * (r - 1):.0f} %: a few slow repetitions pull it up"
    if r < 0.95:
        return f"below the median by {100 * (1 - r):.0f} %"
    return "within 5 % of the median: few outliers in this run"


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


def rounds_sentence(rounds: dict) -> str:
    """The median of every round of every configuration, in words (the variation between
    rounds shows how steady the machine was)."""
    parts = [
        (f"`{name}`" if name.startswith("-") else name) + ": " + ", ".join(f"{np.median(r):.3g}" for r in rs) + " µs"
        for name, rs in rounds.items()
    ]
    return "the medians of the single rounds were " + "; ".join(parts)


def warmup_effect(cold, n_first: int = 3) -> tuple[float, float]:
    """(mean of the first n_first repetitions, median of the rest) of a run without warm-up."""
    cold = np.asarray(cold, float)
    return float(cold[:n_first].mean()), float(np.median(cold[n_first:]))


def warmup_sentence(cold, warm=None, n_first: int = 3) -> str:
    """What the runs without and with warm-up showed, in words that follow their numbers."""

    def one(t):
        first, rest = warmup_effect(t, n_first)
        how = (
            f"{first / rest:.0f} times"
            if first > 1.5 * rest
            else "about as long as"
            if first > rest / 1.5
            else f"{rest / first:.0f} times less than"
        )
        return first, rest, how

    first, rest, how = one(cold)
    text = (
        f"the first {n_first} repetitions took {first:.3g} µs on average, {how} the median of "
        f"the others ({rest:.3g} µs)"
    )
    if warm is not None:
        wfirst, wrest, whow = one(warm)
        text += f"; after the warm-up they took {wfirst:.3g} µs, {whow} the median of the others ({wrest:.3g} µs)"
    if first > 1.5 * rest:
        text += (
            ". Averaged into a short run, slow first repetitions bias it upwards; the figure "
            "shows how many repetitions the slow start lasted"
        )
    else:
        text += (
            ". This time the set-up cost did not stand out in the timed repetitions (the "
            "library may have paid it during start-up)"
        )
    return text


def load_sentence(load, cores: int) -> str:
    """What the 1-minute load average at the start says about the machine's other work."""
    try:
        load = float(load)
    except (TypeError, ValueError):
        return "(the load average could not be read): whatever else ran on the cores is part of the measurements below"
    if load >= cores:
        return (
            f"{load:g} when it started, at least as much work as it has cores: other programs were "
            "competing with the measurements below"
        )
    if load >= 0.25:
        return (
            f"{load:g} when it started: other programs were using the cores too, and their noise "
            "is part of the measurements below"
        )
    return f"{load:g} when it started: the machine was nearly idle, and the noise below is mostly its own"


def oversubscription_setting(cores: int, processes: int = 4) -> str:
    """Whether the experiment's `processes` ranks outnumber this machine's cores."""
    if processes > cores:
        return f"With {processes} processes on {cores} cores, oversubscribed"
    return (
        f"With {processes} processes on {cores} cores, which is not oversubscription (every rank "
        "has a core, so this shows only what idle ranks cost)"
    )


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


def percent(x: float) -> str:
    return f"{100 * x:.0f} %" if math.isfinite(x) else "n/a"


# ------------------------------------------------------------------------- figures


def plot_distribution(t_us, title="1,000 repetitions of an 8-byte ping-pong", ax=None):
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
        + (f"; {beyond} beyond the axis, up to {t.max():.3g} µs" if beyond else ""),
    )
    ax.set_xscale("log")
    for value, name, style in ((s.min, "min", ":"), (s.median, "median", "-"), (s.mean, "mean", "--")):
        ax.axvline(value, color="k", ls=style, lw=1.2, label=f"{name} {value:.3g} µs")
    ax.axvspan(s.ci_low, s.ci_high, color="C1", alpha=0.3, label="95 % interval of the median")
    label_axes(ax, title, "time of one repetition (µs, log scale)", "repetitions")
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


def plot_samples(samples: dict, title: str, ylabel: str = "time of one repetition (µs)"):
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
    label_axes(
        ax, title, "box: quartiles and median; whiskers: 1st and 99th percentile; dots: beyond", ylabel + ", log scale"
    )
    ax.xaxis.set_label_position("bottom")
    ax.set_xlabel(ax.get_xlabel(), fontsize=8)
    return fig
