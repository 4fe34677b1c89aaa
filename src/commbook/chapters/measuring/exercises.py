"""The references of the exercises of measuring well (book/measuring.md): computed from the statistics and this machine's runs."""

from __future__ import annotations

from ...exercises.core import _exercise

MEAS_N = 200  # repetitions in the confidence-interval exercise


MEAS_RANK_TIMES = (3.1, 2.8, 3.0, 9.5)  # µs, the four ranks of the collective exercise


@_exercise("meas-ci", "measuring", rel_tol=0, unit="", giveaways=("median_ci(", "binom.ppf"))
def _meas_ci():
    from scipy.stats import binom

    return int(binom.ppf(0.025, MEAS_N, 0.5))


@_exercise("meas-skew", "measuring", kind="choice")
def _meas_skew(times_us):
    import numpy as np

    t = np.asarray(times_us, float)
    return "above" if t.mean() > np.median(t) else "below"


@_exercise("meas-osu", "measuring", rel_tol=0.01)
def _meas_osu():
    return max(MEAS_RANK_TIMES) / (sum(MEAS_RANK_TIMES) / len(MEAS_RANK_TIMES))
