"""The measuring page (commbook.chapters.measuring): its statistics, its kernel's experiments and its verdicts."""

import numpy as np
import pytest

from commbook import kernels
from commbook.chapters import measuring as M
from commbook.chapters import mpi_primer as primer


def test_load_and_oversubscription_verdicts():
    assert M.load("0.05", 2).case == "idle" and M.load("0.05", 2).numbers == {
        "load": 0.05,
        "cores": 2,
        "threshold": 0.25,
    }
    # the page words the threshold from the verdict's numbers: both sides of it
    assert M.load(M.SHARED_LOAD * 0.99, 2).case == "idle" and M.load(M.SHARED_LOAD, 2).case == "shared"
    assert M.load(0.8, 2).case == "shared"
    assert M.load("3.5", 2).case == "busy" and M.load(2.0, 2).case == "busy"  # at the core count
    assert M.load("n/a", 2).case == "unknown"
    assert M.oversubscription(2, 4).case == "oversubscribed"
    assert M.oversubscription(8, 4).case == "a_core_each"
    assert M.oversubscription(4, 4).numbers == {"cores": 4, "processes": 4}


def test_warmup_verdict_reads_both_runs():
    rest = np.ones(50)
    slow = np.r_[[10.0] * 3, rest]
    v = M.warmup(slow, rest)
    assert v.case == "cold_only" and v.numbers["cold_factor"] == 10 and v.numbers["warm_factor"] == 1
    assert (v.numbers["cold_times"], v.numbers["warm_times"]) == ("10", "1")
    # the page quotes factors written out: 1.3e+04 was glued as such
    assert M.times_text(12873.0) == "13,000" and M.times_text(1.62) == "1.6" and M.times_text(0.951) == "0.95"
    # the old sentence read the cold run alone: a slow warm start flips the verdict
    assert M.warmup(slow, slow).case == "both"
    # a start slower after warm-up than without is no set-up the warm-up missed (4.7 and 16 times)
    slower = np.r_[[20.0] * 3, rest]
    assert M.warmup(slow, slower).case == "warm_slower" and M.warmup(slower, slow).case == "both"
    assert M.warmup(rest, slow).case == "warm_only"
    assert M.warmup(rest, rest).case == "neither"


mpi = pytest.mark.mpi


def test_median_interval_is_le_boudecs_order_statistics():
    assert M.median_ci_ranks(1000) == (469, 532)  # Le Boudec's table, n = 1000, 95 %
    assert M.median_ci(np.arange(1, 1001)) == (469.0, 532.0)
    with pytest.raises(ValueError, match="too few"):
        M.median_ci([1, 2, 3])


def test_median_interval_covers_the_median_about_95_percent_of_the_time():
    rng = np.random.default_rng(1)
    true_median = np.log(2)  # of an exponential distribution with rate 1: skewed, like timings
    hits = sum(lo <= true_median <= hi for lo, hi in (M.median_ci(rng.exponential(size=101)) for _ in range(2000)))
    assert 0.93 <= hits / 2000 <= 0.98


def test_compare_says_faster_only_when_the_intervals_part():
    rng = np.random.default_rng(2)
    a, b = 1 + rng.exponential(0.1, 500), 2 + rng.exponential(0.1, 500)
    v = M.compare(a, b)
    assert v.case == "a_faster" and v.numbers["a_high"] < v.numbers["b_low"]
    assert v.numbers["ratio"] == pytest.approx(np.median(b) / np.median(a))
    assert M.compare(b, a).case == "b_faster"
    assert M.compare(a, a.copy()).case == "overlap"


def test_mean_side_reads_the_tail():
    tail = np.r_[np.ones(90), np.full(10, 10.0)]
    v = M.mean_side(M.summarise(tail))
    assert v.case == "above" and v.numbers["pct"] == pytest.approx(90)
    assert M.mean_side(M.summarise(np.linspace(1, 1.01, 100))).case == "close"
    v = M.mean_side(M.summarise(np.r_[np.ones(99), [1000.0]]))
    assert v.case == "far_above" and v.numbers["ratio"] == pytest.approx(10.99)
    assert M.mean_side(M.summarise(np.r_[np.full(40, 0.1), np.ones(60)])).case == "below"


def test_bindings_are_read_from_the_kernel_header():
    text = (
        "# commbook-kernel: measuring\n# cpus_rank0: 0\n# cpus_rank1: 1\n"
        "# columns: repetition t_us\n0 1.0\n# result: ok\n"
    )
    out = kernels.parse_output(text)
    assert M.bindings(out) == {0: "0", 1: "1"} and M.is_bound(out)
    free = kernels.parse_output(text.replace("rank0: 0", "rank0: 0-1").replace("rank1: 1", "rank1: 0-1"))
    assert not M.is_bound(free)
    with pytest.raises(ValueError):
        M.binding_args("everywhere")


def test_orfeo_run_spread_uses_repeated_runs_only():
    runs, spread = M.orfeo_run_spread()
    assert (runs.runs > 1).all() and (spread >= 1).all() and len(spread) > 10
    small, large = M.orfeo_spreads()
    assert small == 100 * (spread[spread.index <= 1024].median() - 1)
    assert large == 100 * (spread[spread.index >= 2**20].median() - 1)


@mpi
def test_measuring_kernel_experiments():
    timer = M.run("timer", 2, repetitions=50)
    assert len(timer.table) == 50 and float(timer.meta["wtick_s"]) > 0
    pp = M.run("pingpong", 3, M.binding_args("none"), repetitions=20, warmup=0, size=100)
    assert len(pp.table) == 20 and (M.times(pp) > 0).all() and not M.is_bound(pp)
    coll = M.run("bcast", 2, size=64, repetitions=10)
    r = M.collective_reading(coll)
    assert r["min_over_ranks"] <= r["mean_over_ranks"] <= r["max_over_ranks"]


@mpi
def test_measuring_kernel_refuses_a_bad_experiment_in_one_line():
    with pytest.raises(kernels.KernelFailed, match="--experiment 'nap' is not timer"):
        M.run("nap", 2)
    with pytest.raises(KeyError):
        primer.run_example("nonesuch", 2)


def test_rounds_spread_reads_every_round_of_both_configurations():
    steady = {"a": [np.ones(5), np.full(5, 1.1), np.full(5, 1.2)], "b": [np.full(5, 5.0)] * 3}
    v = M.rounds_spread(steady)
    assert v.case == "rounds_steadier"
    assert v.numbers["a_low"] == 1 and v.numbers["a_high"] == 1.2 and v.numbers["b_low"] == 5
    assert v.numbers["rounds"] == 3 and v.numbers["between"] == pytest.approx(5 / 1.1)
    # one slow round of three (which the pooled median ignores) flips it
    slow_round = {"a": steady["a"][:2] + [np.full(5, 9.0)], "b": steady["b"]}
    v = M.rounds_spread(slow_round)
    assert v.case == "rounds_wider" and v.numbers["a_high"] == 9 and v.numbers["within"] == 9
    # rounds that differ nearly as much as the configurations (one build's 21 against 22) are not
    # steadier; when every round of a is still below every round of b they are apart
    close = {"a": [np.ones(5), np.full(5, 1.8)], "b": [np.full(5, 3.0)] * 2}
    v = M.rounds_spread(close)
    assert v.case == "rounds_apart" and v.numbers["within"] == pytest.approx(1.8)
    assert v.numbers["between"] == pytest.approx(3 / 1.4)
    # one build: 0.325-0.34 us with 2 processes, 2.39-23.6 with 4 (within 9.8, between 12):
    # the 4-process rounds are wide, but every one is slower than every 2-process round
    build = {
        "a": [np.full(5, 0.325), np.full(5, 0.33), np.full(5, 0.34)],
        "b": [np.full(5, 2.39), np.full(5, 4.0), np.full(5, 23.6)],
    }
    assert M.rounds_spread(build).case == "rounds_apart"
    # the bound/unbound build: 0.306-0.396 against 0.221-8.83, ranges overlap: wider
    bound = {
        "a": [np.full(5, 0.306), np.full(5, 0.35), np.full(5, 0.396)],
        "b": [np.full(5, 0.221), np.full(5, 0.33), np.full(5, 8.83)],
    }
    assert M.rounds_spread(bound).case == "rounds_wider"
    # rounds 10 % apart, configurations 80 % apart: the process count is the larger effect (the
    # old test, twice the ratio against the ratio, called it wider)
    apart = {"a": [np.ones(5), np.full(5, 1.1)], "b": [np.full(5, 1.89)] * 2}
    v = M.rounds_spread(apart)
    assert v.case == "rounds_steadier" and v.numbers["between"] == pytest.approx(1.8)
    rounds = {"a": [np.array([1.0, 2.0, 3.0]), np.array([10.0])], "b": [np.array([4.0])]}
    assert set(M.pooled(rounds)) == {"a", "b"} and len(M.pooled(rounds)["a"]) == 4
