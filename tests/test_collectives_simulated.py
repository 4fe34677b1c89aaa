"""The allreduce algorithms at P = 48 on a simulated ORFEO (commbook.chapters.collectives.simulated,
book/collectives_library.md): the shipped reference without SMPI, a small live run with it, and
the verdicts' cases with their numbers."""

import numpy as np
import pandas as pd
import pytest

from commbook.chapters.collectives import simulated as sim
from commbook.data import read_measurements
from commbook.simulate import runner

SIZES = [8 << k for k in range(20)]  # 8 B to 4 MiB, as the reference
ALGORITHMS = {"butterfly-lh", "ring", "rabenseifner", "library/ompi", "library/mpich"}


def no_smpi(monkeypatch):
    monkeypatch.setattr(runner, "status", lambda: runner.SMPIStatus(None, None, ""))


def table_of(times: dict, P=sim.P) -> pd.DataFrame:
    """A tidy table of simulated times {algorithm: [µs per size of SIZES]}."""
    rows = [
        {"algorithm": a, "np": P, "size_bytes": n, "t_us": t, "t_min_us": t, "t_max_us": t}
        for a, ts in times.items()
        for n, t in zip(SIZES, ts)
    ]
    return pd.DataFrame(rows).assign(benchmark="allreduce", mpi_library="SMPI 3.32")


def butterfly_then(ring_from: int, dips=(), rab_from=None) -> dict:
    """Butterfly 10 µs at every size; the ring 2x slower below `ring_from`, 2x faster from it
    (and slower again at the sizes in `dips`); Rabenseifner 12 µs, 8 µs from `rab_from` (so it
    beats the butterfly from there, never if None, and loses to the ring from `ring_from`)."""
    ring = [5.0 if n >= ring_from and n not in dips else 20.0 for n in SIZES]
    rab = [8.0 if rab_from is not None and n >= rab_from else 12.0 for n in SIZES]
    libs = {"library/ompi": [11.0] * 20, "library/mpich": [11.0] * 20}
    return {"butterfly-lh": [10.0] * 20, "ring": ring, "rabenseifner": rab, **libs}


# ------------------------------------------------------------------ the shipped reference, no SMPI
def test_without_smpi_the_page_draws_the_shipped_reference(monkeypatch):
    no_smpi(monkeypatch)
    table, origin = sim.simulated_allreduce()
    assert origin == "absent"
    assert set(table.algorithm) == ALGORITHMS and set(table.np) == {48}
    assert all(sorted(g.size_bytes) == SIZES for _, g in table.groupby("algorithm"))
    assert set(table.machine) == {"simulated orfeo-thin 2 nodes"} and set(table.mpi_library) == {"SMPI 3.32"}
    assert all("simulated=1" in p for p in table.params)
    v = sim.source(table, origin)
    assert v.case == "absent" and v.numbers["reference"].endswith(sim.REFERENCE)


def test_the_reference_says_how_it_was_made_and_matches_the_calibration():
    meta = read_measurements(sim.reference_path()).meta
    assert meta["calibration"] == runner.calibration_id()  # stale after a new calibration: remake it
    assert meta["command"] == "commbook simulate reference --kernel allreduce"
    assert meta["map_by"] == "core" and meta["platform"] == "orfeo-thin:2" and meta["np"] == "48"
    assert "coll-selector:ompi" in meta["runs"] and "coll-selector:mpich" in meta["runs"]
    assert len(meta["wall"].split("; ")) == len(sim.RUNS)  # seconds of smpirun per run, or "cached"


def test_the_reference_ring_crosses_far_below_the_formulas_rabenseifner_far_above(monkeypatch):
    no_smpi(monkeypatch)
    table, _ = sim.simulated_allreduce()
    lam, b = sim.link()
    v = sim.crossover_side(table, lam, b)
    # the formulas at P = 48 (fold to 32): butterfly 7 λ + 7 n/b, ring 94 λ + 2·47/48 n/b
    model = (94 - 7) * lam / ((7 - 2 * 47 / 48) / b)
    assert v.numbers["ring_model_bytes"] == pytest.approx(model)
    # the ring overtakes both far below the formulas, Rabenseifner the butterfly far above
    assert v.case == "ring_early" and v.numbers["ring_sim_bytes"] == 8192
    assert v.numbers["ring_factor"] == pytest.approx(model / 8192)
    assert v.numbers["rab_ring_sim_bytes"] == 8192 and v.numbers["rab_ring_factor"] > 2
    assert v.numbers["rab_sim_bytes"] == 1 << 20 and v.numbers["rab_ratio"] > 2
    # but not only from there: Rabenseifner also beats the butterfly at 1 KiB and 16-128 KiB, and
    # the ring beats Rabenseifner at 2 KiB; the words count every win
    assert (v.numbers["rab_wins"], v.numbers["rab_early"]) == (8, 5)
    assert (v.numbers["ring_wins"], v.numbers["ring_early"]) == (10, 0)
    assert (v.numbers["rab_ring_wins"], v.numbers["rab_ring_early"]) == (11, 1)
    assert v.numbers["sizes"] == 20 and 0 < v.numbers["disagree"] < 20
    # at 8 KiB the butterfly is dearer than its formula, the ring cheaper (2 of its 48 links cross nodes)
    assert v.numbers["at_bytes"] == 8192
    assert v.numbers["small_over_model"] > 2 and v.numbers["large_over_model"] < 0.5
    pairs = sim.crossovers(table, lam, b)["simulated / formula"]
    assert pairs["butterfly-lh", "ring"] == pytest.approx(8192 / model, rel=0.01)
    assert pairs["butterfly-lh", "rabenseifner"] > 1 > pairs["rabenseifner", "ring"]  # both sides occur
    lib = sim.library_side(table)
    assert lib.case == "mixed" and 0 < lib.numbers["ompi_faster"] < 20
    assert lib.numbers["ompi_from"] <= lib.numbers["ompi_to"] and lib.numbers["ompi_worst"] > 1


# ------------------------------------------------------------------ the verdicts' cases
LINK = (0.99, 12090.0)  # ORFEO's node link (λ µs, b MB/s); the formulas' crossover is 206,541 B


@pytest.mark.parametrize(
    "ring_from, dips, rab_from, case, counts",
    [  # counts: the crossovers over twice below the formulas', near, over twice above or never
        # the formulas': butterfly -> ring 206,541 B, butterfly -> Rabenseifner 19,541, Rabenseifner -> ring 495,899
        (1024, (), 1024, "below", (3, 0, 0)),
        # the same butterfly and ring, but Rabenseifner late: the row the old verdict left out flips it
        (1024, (), 1 << 20, "ring_early", (2, 0, 1)),
        (1024, (), None, "mixed", (2, 0, 1)),  # Rabenseifner never: no size to quote
        (262144, (), 16384, "mixed", (0, 3, 0)),
        (2 << 20, (), 65536, "mixed", (0, 0, 3)),
        (8, (4 << 20,), None, "mixed", (0, 0, 3)),  # the ring faster everywhere but at the largest size
        # ahead from 1 KiB but behind again at 64 KiB: for good from 128 KiB, near the formulas'
        (1024, (65536,), 1024, "mixed", (2, 1, 0)),
    ],
)
def test_crossover_cases_read_every_row(ring_from, dips, rab_from, case, counts):
    v = sim.crossover_side(table_of(butterfly_then(ring_from, dips, rab_from)), *LINK)
    assert v.case == case
    assert (v.numbers["n_below"], v.numbers["n_near"], v.numbers["n_late"]) == counts
    assert v.numbers["ring_model_bytes"] == pytest.approx(206541, rel=1e-4)
    assert v.numbers["sizes"] == 20


def test_ring_early_needs_the_butterfly_dearer_than_its_formula_and_the_ring_cheaper():
    times = butterfly_then(1024, (), 1 << 20)
    v = sim.crossover_side(table_of(times), *LINK)
    assert v.case == "ring_early" and v.numbers["small_over_model"] > 1 > v.numbers["large_over_model"]
    # the same crossovers, every time halved: the butterfly is now cheaper than its formula
    half = sim.crossover_side(table_of({a: [t / 2 for t in ts] for a, ts in times.items()}), *LINK)
    assert half.numbers["small_over_model"] < 1 and half.case == "mixed"
    assert (half.numbers["n_below"], half.numbers["n_near"], half.numbers["n_late"]) == (2, 0, 1)


def test_crossover_numbers_are_each_rows():
    v = sim.crossover_side(table_of(butterfly_then(1024, (), 1 << 20)), *LINK)
    assert (v.numbers["ring_sim_bytes"], v.numbers["rab_sim_bytes"], v.numbers["rab_ring_sim_bytes"]) == (
        1024,
        1 << 20,
        1024,
    )
    assert v.numbers["rab_ratio"] == pytest.approx((1 << 20) / v.numbers["rab_model_bytes"])
    assert v.numbers["rab_model_bytes"] == pytest.approx(19541, rel=1e-3)
    assert (v.numbers["ring_wins"], v.numbers["rab_wins"], v.numbers["rab_ring_wins"]) == (13, 3, 13)
    assert v.numbers["ring_early"] == v.numbers["rab_early"] == v.numbers["rab_ring_early"] == 0
    never = sim.crossover_side(table_of(butterfly_then(1024)), *LINK)  # Rabenseifner never wins
    assert never.numbers["rab_sim_bytes"] == 0 and never.numbers["rab_ratio"] == 0
    assert never.numbers["rab_wins"] == never.numbers["rab_early"] == 0
    # a win before the crossover is counted: the ring ahead at 1 KiB, behind at 2 KiB, for good from 4 KiB
    dip = sim.crossover_side(table_of(butterfly_then(1024, (2048,), 1 << 20)), *LINK)
    assert dip.numbers["ring_sim_bytes"] == 4096 and (dip.numbers["ring_wins"], dip.numbers["ring_early"]) == (12, 1)


def test_crossover_counts_the_sizes_where_simulation_and_formulas_differ():
    lam, b = LINK
    formula = sim.models(SIZES, lam, b).pivot_table(index="size_bytes", columns="algorithm", values="t_us")
    v = sim.crossover_side(table_of({a: list(formula[a]) for a in sim.HAND} | butterfly_then(8)), lam, b)
    assert v.numbers["disagree"] == int((formula[list(sim.HAND)].idxmin(axis=1) != "ring").sum())
    same = {a: list(formula[a]) for a in sim.HAND}
    libs = {"library/ompi": list(formula.min(axis=1)), "library/mpich": list(formula.min(axis=1))}
    assert sim.crossover_side(table_of(same | libs), lam, b).numbers["disagree"] == 0


@pytest.mark.parametrize(
    "ompi, case, faster, span, worst",
    [
        ([9.0] * 20, "always", 20, (8, 4 << 20), 0.9),
        ([11.0] * 20, "never", 0, (0, 0), 1.1),
        ([11.0] * 10 + [9.0] * 5 + [20.0] * 5, "mixed", 5, (8 << 10, 8 << 14), 2.0),
    ],
)
def test_library_cases(ompi, case, faster, span, worst):
    times = {"butterfly-lh": [10.0] * 20, "ring": [10.0] * 20, "rabenseifner": [10.0] * 20}
    v = sim.library_side(table_of(times | {"library/ompi": ompi, "library/mpich": [5.0] * 20}))
    assert v.case == case
    assert (v.numbers["ompi_faster"], (v.numbers["ompi_from"], v.numbers["ompi_to"])) == (faster, span)
    assert v.numbers["ompi_worst"] == pytest.approx(worst) and v.numbers["mpich_faster"] == 20


# ------------------------------------------------------------------ a small live run (SMPI)
def test_a_small_live_sweep_is_simulated_then_read_from_the_cache(smpi, monkeypatch):
    monkeypatch.setattr(sim, "P", 4)
    monkeypatch.setattr(sim, "OPTIONS", {"sizes": "8,65536", "iterations": 2, "repetitions": 1})
    table, wall = sim.simulate()
    assert set(table.algorithm) == ALGORITHMS and set(table.np) == {4}
    assert set(table.mpi_library) == {smpi.library} and set(wall) == set(sim.RUNS)
    assert (table.t_us > 0).all() and np.isfinite(table.t_us).all()
    again, origin = sim.simulated_allreduce()  # every run is cached now: "live", nothing simulated
    assert origin == "live" and sim.source(again, origin).case == "live"
    pd.testing.assert_series_equal(
        again.sort_values(["algorithm", "size_bytes"]).t_us.reset_index(drop=True),
        table.sort_values(["algorithm", "size_bytes"]).t_us.reset_index(drop=True),
    )
    monkeypatch.setattr(sim, "OPTIONS", {"sizes": "8,65536", "iterations": 3, "repetitions": 1})
    cold, origin = sim.simulated_allreduce()  # not cached: the shipped reference, not a new simulation
    assert origin == "cold" and set(cold.np) == {48}
