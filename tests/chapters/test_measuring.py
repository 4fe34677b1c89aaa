"""The measuring page (commbook.chapters.measuring): its statistics, its kernel's experiments and the sentences that follow them."""

import numpy as np
import pytest

from commbook import kernels
from commbook.chapters import measuring as M
from commbook.chapters import mpi_primer as primer


def test_measuring_load_warmup_and_oversubscription_words():
    from commbook.chapters import measuring as M

    assert "nearly idle" in M.load_sentence("0.05", 2)
    assert "using the cores too" in M.load_sentence(0.8, 2)
    assert "competing" in M.load_sentence("3.5", 2)
    assert "could not be read" in M.load_sentence("n/a", 2)
    assert "oversubscribed" in M.oversubscription_setting(2, 4)
    assert "not oversubscription" in M.oversubscription_setting(8, 4)
    rest = [1.0] * 50
    assert "how many repetitions the slow start lasted" in M.warmup_sentence([10.0] * 3 + rest)
    assert "slow start" not in M.warmup_sentence([1.0] * 3 + rest)


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
    assert M.compare(a, b, "A", "B").startswith("A is faster")
    assert M.compare(b, a, "B", "A").startswith("A is faster")
    assert "cannot tell" in M.compare(a, a.copy(), "A", "A again")


def test_mean_vs_median_reads_the_tail():
    tail = np.r_[np.ones(90), np.full(10, 10.0)]
    assert "above the median" in M.mean_vs_median(M.summarise(tail))
    assert "within 5 %" in M.mean_vs_median(M.summarise(np.linspace(1, 1.01, 100)))
    assert M.mean_vs_median(M.summarise(np.r_[np.ones(99), [1000.0]])).startswith("11 times the median")


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


def test_measuring_sentences_follow_the_numbers():
    slow_start = np.r_[[50.0, 40.0, 30.0], np.full(47, 1.0)]
    assert "40 times the median" in M.warmup_sentence(slow_start)
    assert "bias it upwards" in M.warmup_sentence(slow_start)
    both = M.warmup_sentence(slow_start, np.ones(50))
    assert "after the warm-up they took 1 µs, about as long as the median" in both
    assert "did not stand out" in M.warmup_sentence(np.ones(50))
    rounds = {"a": [np.array([1.0, 2.0, 3.0]), np.array([10.0])], "b": [np.array([4.0])]}
    assert M.rounds_sentence(rounds) == ("the medians of the single rounds were a: 2, 10 µs; b: 4 µs")
    assert set(M.pooled(rounds)) == {"a", "b"} and len(M.pooled(rounds)["a"]) == 4
