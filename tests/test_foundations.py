"""The foundation pages' package code: the MPI primer's examples, the statistics and experiments
of "Measuring well", the scaling laws and the ORFEO Jacobi runs, the course map."""

import numpy as np
import pytest

from commbook import kernels
from commbook.chapters import course_map as course
from commbook.chapters import measuring as M
from commbook.chapters import mpi_primer as primer
from commbook.chapters import scaling as S
from commbook.exercises.foundations import dims_create

mpi = pytest.mark.mpi


# ---- statistics


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


# ---- scaling


def test_amdahl_and_gustafson():
    assert S.amdahl_speedup(0, 16) == pytest.approx(16)
    assert S.amdahl_speedup(1, 16) == pytest.approx(1)
    assert S.amdahl_speedup(0.05, 1e9) == pytest.approx(20, rel=1e-6)
    assert S.gustafson_speedup(0.05, 48) == pytest.approx(48 - 0.05 * 47)
    assert S.serial_fraction(float(S.amdahl_speedup(0.02, 48)), 48) == pytest.approx(0.02)
    with pytest.raises(ValueError):
        S.amdahl_speedup(1.5, 4)


def test_serial_fraction_fit_recovers_amdahl():
    import pandas as pd

    P = np.array([1, 2, 4, 8, 16, 48])
    strong = pd.DataFrame({"np": P, "speedup": S.amdahl_speedup(0.01, P)})
    assert S.fit_serial_fraction(strong) == pytest.approx(0.01, rel=1e-6)


def test_orfeo_jacobi_strong_and_weak():
    strong, weak = S.orfeo_jacobi()
    for df in (strong, weak):
        assert df.np.iloc[0] == 1 and df.np.is_unique and df.speedup.iloc[0] == pytest.approx(1)
        assert (df.efficiency > 0.5).all() and (df.efficiency <= 1.01).all()
    assert strong.t_us.is_monotonic_decreasing  # strong: more processes, less time
    assert weak.t_us.max() / weak.t_us.min() < 1.2  # weak: about the same time


# ---- the primer's grid and the course map


@pytest.mark.parametrize(
    "P, d, dims",
    [(6, 2, (3, 2)), (12, 2, (4, 3)), (7, 2, (7, 1)), (16, 2, (4, 4)), (24, 3, (4, 3, 2)), (8, 3, (2, 2, 2))],
)
def test_dims_create_is_mpis_choice(P, d, dims):
    assert dims_create(P, d) == dims


def test_course_map_reads_exercises_and_which_run_code(repo):
    ex = {e["label"]: e["runs_code"] for e in course.exercises_of(repo / "book" / "mpi_primer.md")}
    assert ex == {"prim-dims": True, "prim-edges": False, "prim-standard": True}
    pages = course.toc_pages(repo / "_toc.yml")
    assert pages[0] == "intro" and {"mpi_primer", "measuring", "scaling", "glossary"} <= set(pages)
    assert pages.index("mpi_primer") < pages.index("pingpong")
    assert pages.index("scaling") < pages.index("jacobi")


def test_every_chapter_has_three_exercises_one_running_code(repo):
    """Every chapter of _toc.yml (a page with its lab page, if it has one) except the intro and the
    appendix/instructor pages has at least three exercises, and at least one of them runs code
    (its cell calls more than the self-check)."""
    pages = course.toc_pages(repo / "_toc.yml")[1:]
    without = {"how_it_works", "glossary", "references", "instructor"}
    short = []
    for page in pages:
        if page in without or page.endswith("_lab"):
            continue
        lab = repo / "book" / f"{page}_lab.md"
        found = course.exercises_of(repo / "book" / f"{page}.md") + (course.exercises_of(lab) if lab.exists() else [])
        if len(found) < 3 or not any(e["runs_code"] for e in found):
            short.append(f"{page}: {len(found)} exercises, {sum(e['runs_code'] for e in found)} running code")
    assert not short, "pages short of exercises:\n" + "\n".join(short)


# ---- the C examples (they check their own answers)


@mpi
@pytest.mark.parametrize("name, np_", [("point_to_point", 3), ("cartesian", 6), ("collectives", 5)])
def test_primer_examples_pass_their_own_checks(name, np_):
    out = primer.run_example(name, np_)
    assert out.ok and out.meta["np"] == np_


@mpi
def test_cartesian_grid_has_mpi_proc_null_only_at_the_non_periodic_edges():
    t = primer.run_example("cartesian", 6).table
    assert list(t.columns[:3]) == ["rank", "row", "col"] and len(t) == 6
    assert (t.up != "none").all() and (t.down != "none").all()
    assert set(t[t.col == 0].left) == {"none"} and set(t[t.col == 1].right) == {"none"}


@mpi
def test_send_modes_synchronous_waits_and_buffered_does_not():
    out = primer.run_example("send_modes", 2, large="256K", **{"delay-ms": 300})
    assert primer.waited(out, "synchronous", False)  # Ssend waits even for 8 bytes
    assert not primer.waited(out, "buffered", True)  # Bsend copies and returns
    assert "standard send" in primer.standard_send_sentence(out)


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


def test_scaling_verdict_follows_the_speedup():
    assert "slower" in S.local_verdict(0.5, 0.4, "9.0")
    assert "far from twice" in S.local_verdict(1.3, 0.9, "1.0")
    assert "close to the ideal" in S.local_verdict(1.9, 0.97, "0.1")


def test_send_mode_sentence_follows_the_table():
    text = (
        "# commbook-kernel: send_modes\n# delay_ms: 200\n# columns: mode size_bytes return_ms\n"
        "standard 8 0.002\nstandard 4194304 201.0\nsynchronous 8 200.5\nsynchronous 4194304 200.1\n"
        "buffered 8 0.01\nbuffered 4194304 2.5\nready 8 0.01\nready 4194304 1.0\n# result: ok\n"
    )
    out = kernels.parse_output(text)
    assert primer.standard_send_sentence(out) == (
        "the 8-byte standard send returned at once (the library buffered it), "
        "the 4 MiB one waited until the receive was posted"
    )
    assert primer.waited(out, "synchronous", False) and not primer.waited(out, "buffered", True)
    eager_everywhere = kernels.parse_output(text.replace("standard 4194304 201.0", "standard 4194304 0.5"))
    assert primer.standard_send_sentence(eager_everywhere).startswith("both the 8-byte and the 4 MiB")


def test_prim_standard_is_checked_against_the_readers_own_run():
    from commbook import exercises as E

    assert E.expected("prim-standard", standard_ms=180.0, delay_ms=200.0) == "yes"
    assert E.expected("prim-standard", standard_ms=0.05, delay_ms=200.0) == "no"
