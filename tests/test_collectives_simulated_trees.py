"""Broadcast and gather at P = 48 on a simulated ORFEO (commbook.chapters.collectives.simulated_trees,
book/collectives_algorithms.md): the shipped references without SMPI, a small live run with it,
and the verdicts' cases with their numbers."""

import numpy as np
import pandas as pd
import pytest

from commbook.chapters.collectives import simulated_trees as simx
from commbook.data import read_measurements
from commbook.simulate import runner

SIZES = [8 << k for k in range(20)]  # 8 B to 4 MiB, as the references
LINK = (0.99, 12090.0)  # ORFEO's node link (λ µs, b MB/s)
# the formulas' crossovers at P = 48 on LINK: binomial -> pipeline (16 KiB segments), -> scatter-allgather
PIPE_MODEL, SAG_MODEL = 283994, 139187


def no_smpi(monkeypatch):
    monkeypatch.setattr(runner, "status", lambda: runner.SMPIStatus(None, None, ""))


def table_of(op: str, times: dict, P=simx.P) -> pd.DataFrame:
    """A tidy table of simulated times {algorithm: [µs per size of SIZES]}; every library
    algorithm not given takes 10 µs."""
    times = {a: [10.0] * 20 for a in [*simx.forced(op), simx.DECISION]} | times
    rows = [
        {"algorithm": a, "np": P, "size_bytes": n, "t_us": t, "t_min_us": t, "t_max_us": t}
        for a, ts in times.items()
        for n, t in zip(SIZES, ts)
    ]
    return pd.DataFrame(rows).assign(benchmark=op, mpi_library="SMPI 3.32")


def faster_from(start: int, dips=(), also=()) -> list[float]:
    """5 µs (faster than 10) from `start` and at the sizes in `also`, 20 µs elsewhere and at `dips`."""
    return [5.0 if (n >= start or n in also) and n not in dips else 20.0 for n in SIZES]


def bcast(pipe_from, sag_from, pipe_dips=()) -> pd.DataFrame:
    """Every hand-written broadcast 10 µs but the pipeline and scatter-allgather, faster from the sizes given."""
    hand = {a: [10.0] * 20 for a in simx.HAND["bcast"]}
    return table_of(
        "bcast", hand | {"pipeline": faster_from(pipe_from, pipe_dips), "scatter-allgather": faster_from(sag_from)}
    )


def gather(linear: list[float]) -> pd.DataFrame:
    return table_of("gather", {"binomial": [10.0] * 20, "linear": linear})


# ------------------------------------------------------------------ the shipped references, no SMPI
def test_without_smpi_the_page_draws_the_shipped_references(monkeypatch):
    no_smpi(monkeypatch)
    tables, origins = {}, {}
    for op in simx.OPS:
        tables[op], origins[op] = simx.simulated(op)
        labels = set(simx.HAND[op]) | set(simx.forced(op)) | {simx.DECISION}
        assert origins[op] == "absent" and set(tables[op].algorithm) == labels and set(tables[op].np) == {48}
        assert all(sorted(g.size_bytes) == SIZES for _, g in tables[op].groupby("algorithm"))
        assert set(tables[op].machine) == {"simulated orfeo-thin 2 nodes"}
        assert all("simulated=1" in p for p in tables[op].params)
    v = simx.source(origins, tables)
    assert v.case == "absent" and all(simx.reference_name(op) in v.numbers["reference"] for op in simx.OPS)


@pytest.mark.parametrize("op", simx.OPS)
def test_the_references_say_how_they_were_made_and_match_the_calibration(op):
    meta = read_measurements(simx.reference_path(op)).meta
    assert meta["calibration"] == runner.calibration_id()  # stale after a new calibration: remake it
    assert meta["command"] == f"commbook simulate reference --kernel {op}"
    assert meta["map_by"] == "core" and meta["platform"] == "orfeo-thin:2" and meta["np"] == "48"
    assert all(cfg in meta["runs"] for _, cfg in simx.runs(op).values() for cfg in cfg)
    assert len(meta["wall"].split("; ")) == len(simx.runs(op))  # seconds of smpirun per run, or "cached"


def test_the_references_crossovers(monkeypatch):
    no_smpi(monkeypatch)
    tables = {op: simx.simulated(op)[0] for op in simx.OPS}
    lam, b = simx.link()
    v = simx.bcast_crossings(tables["bcast"], lam, b)
    assert v.numbers["pipe_model_bytes"] == pytest.approx(PIPE_MODEL, rel=1e-4)
    assert v.numbers["sag_model_bytes"] == pytest.approx(SAG_MODEL, rel=1e-4)
    # the pipeline overtakes the binomial tree below the formulas' size, scatter-allgather far above
    assert v.case == "pipeline_early" and v.numbers["pipe_sim_bytes"] == 131072
    assert v.numbers["sag_sim_bytes"] == 2 << 20 and v.numbers["sag_ratio"] > 10
    assert v.numbers["sizes"] == 20 and 0 < v.numbers["disagree"] < 20
    g = simx.gather_crossings(tables["gather"], lam, b)
    # the formulas never let the linear gather win; simulated it wins from 512 KiB, and at 2-16 KiB
    assert g.case == "linear_late_and_earlier" and g.numbers["model_bytes"] == 0
    assert (g.numbers["from_bytes"], g.numbers["early"], g.numbers["first_bytes"]) == (1 << 19, 4, 2048)
    lib = simx.library_picks(tables)
    assert lib.numbers["bcast_sizes"] == lib.numbers["gather_sizes"] == 20
    assert 0 <= lib.numbers["bcast_best"] <= 20 and lib.numbers["gather_worst"] >= 1
    # the shipped run: Open MPI's rules never pick its fastest broadcast, and never beat the book's
    assert lib.case == "bcast_never" and lib.numbers["gather_best"] == 4
    assert simx.library_beats_hand(tables).case == "never"


# ------------------------------------------------------------------ the verdicts' cases
@pytest.mark.parametrize(
    "pipe_from, sag_from, dips, case, counts",
    [  # counts: simulated crossovers over twice below the formulas', near, over twice above or never
        (65536, 2 << 20, (), "pipeline_early", (1, 0, 1)),
        # the same, but the pipeline slower again at 4 MiB: the row a first-crossing reading skips flips it
        (65536, 2 << 20, (4 << 20,), "mixed", (0, 0, 2)),
        # scatter-allgather never faster: late, but no size for the pipeline_early words to name
        (65536, 1 << 30, (), "mixed", (1, 0, 1)),
        (262144, 131072, (), "as_formulas", (0, 2, 0)),
        (1 << 20, 1 << 20, (), "mixed", (0, 0, 2)),
        (8192, 8192, (), "mixed", (2, 0, 0)),
    ],
)
def test_bcast_cases_read_every_row(pipe_from, sag_from, dips, case, counts):
    v = simx.bcast_crossings(bcast(pipe_from, sag_from, dips), *LINK)
    assert v.case == case
    assert (v.numbers["n_below"], v.numbers["n_near"], v.numbers["n_late"]) == counts
    assert v.numbers["pipe_model_bytes"] == pytest.approx(PIPE_MODEL, rel=1e-4) and v.numbers["sizes"] == 20


def test_bcast_numbers_are_each_rows():
    v = simx.bcast_crossings(bcast(65536, 2 << 20), *LINK)
    assert (v.numbers["pipe_sim_bytes"], v.numbers["sag_sim_bytes"]) == (65536, 2 << 20)
    assert v.numbers["sag_ratio"] == pytest.approx((2 << 20) / SAG_MODEL, rel=1e-4)
    assert v.numbers["pipe_early"] == v.numbers["sag_early"] == 0
    never = simx.bcast_crossings(bcast(65536, 2 << 20, (4 << 20,)), *LINK)
    assert never.numbers["pipe_sim_bytes"] == 0 and never.numbers["pipe_early"] == 6  # 64 KiB to 2 MiB
    # the formulas' fastest: binomial, then scatter-allgather, then the pipeline; here the pipeline from 64 KiB
    model = simx.models("bcast", SIZES, *LINK).pivot_table(index="size_bytes", columns="algorithm", values="t_us")
    pipeline_first = pd.Series(np.where(np.array(SIZES) >= 65536, "pipeline", "binomial"), index=SIZES)
    # ties at 10 µs go to the first hand-written algorithm (linear) in the simulated column
    simulated = pipeline_first.where(pipeline_first == "pipeline", "linear")
    assert v.numbers["disagree"] == int((model.idxmin(axis=1) != simulated).sum())


@pytest.mark.parametrize(
    "linear, case, numbers",
    [  # (from, early, first, wins)
        (faster_from(1 << 19, also=(2048, 4096)), "linear_late_and_earlier", (1 << 19, 2, 2048, 6)),
        # the same, but the binomial faster again at 4 MiB: the largest row flips it
        (faster_from(1 << 19, dips=(4 << 20,), also=(2048, 4096)), "back_and_forth", (0, 5, 2048, 5)),
        (faster_from(1 << 30), "binomial_always", (0, 0, 0, 0)),
        (faster_from(8), "linear_late", (8, 0, 8, 20)),
    ],
)
def test_gather_cases_read_every_row(linear, case, numbers):
    v = simx.gather_crossings(gather(linear), *LINK)
    assert v.case == case
    assert (v.numbers["from_bytes"], v.numbers["early"], v.numbers["first_bytes"], v.numbers["wins"]) == numbers
    assert v.numbers["model_bytes"] == 0  # the formulas: never
    assert v.numbers["largest_ratio"] == pytest.approx(10.0 / linear[-1])


@pytest.mark.parametrize(
    "bcast_rules, case, best, worst",
    [
        ([10.0] * 20, "always", 20, 1.0),
        # right at every size but the largest, where it takes 1.5 times its fastest algorithm
        ([10.0] * 19 + [15.0], "mixed", 19, 1.5),
        # never its fastest broadcast, every gather right: no "0 of the 20" in the words
        ([12.0] * 20, "bcast_never", 0, 1.2),
    ],
)
def test_library_cases_read_every_size_of_both(bcast_rules, case, best, worst):
    tables = {
        "bcast": table_of("bcast", {a: [10.0] * 20 for a in simx.HAND["bcast"]} | {simx.DECISION: bcast_rules}),
        "gather": table_of("gather", {"binomial": [8.0] * 20, "linear": [9.0] * 20}),
    }
    v = simx.library_picks(tables)
    assert v.case == case
    assert (v.numbers["bcast_best"], v.numbers["gather_best"]) == (best, 20)
    assert v.numbers["bcast_worst"] == pytest.approx(worst) and v.numbers["bcast_worst_at"] == (
        4 << 20 if worst == 1.5 else 8
    )
    assert v.numbers["bcast_beats_hand"] == 0 and v.numbers["gather_beats_hand"] == 0  # 10 µs against 8


def test_library_never_right_for_one_collective_and_beating_the_book():
    tables = {
        "bcast": table_of("bcast", {a: [10.0] * 20 for a in simx.HAND["bcast"]} | {simx.DECISION: [10.0] * 20}),
        # Open MPI's gather pick 9 µs, its forced algorithms 8 µs, the book's 20 µs but at 4 sizes
        "gather": table_of(
            "gather",
            {"binomial": [20.0] * 16 + [5.0] * 4, "linear": [20.0] * 20, simx.DECISION: [9.0] * 20}
            | {a: [8.0] * 20 for a in simx.forced("gather")},
        ),
    }
    v = simx.library_picks(tables)
    assert v.case == "gather_never" and (v.numbers["bcast_best"], v.numbers["gather_best"]) == (20, 0)
    assert v.numbers["gather_worst"] == pytest.approx(9 / 8)
    hand = simx.library_beats_hand(tables)
    assert hand.case == "some" and hand.numbers == {"beats": 16, "sizes": 40}


def test_library_never_right():
    tables = {
        op: table_of(op, {simx.DECISION: [20.0] * 20} | {a: [10.0] * 20 for a in simx.HAND[op]}) for op in simx.OPS
    }
    v = simx.library_picks(tables)
    assert v.case == "never" and v.numbers["bcast_best"] == v.numbers["gather_best"] == 0
    assert simx.library_beats_hand(tables).case == "never"


@pytest.mark.parametrize(
    "origins, case",
    [
        ({"bcast": "live", "gather": "live"}, "live"),
        ({"bcast": "live", "gather": "cold"}, "cold"),
        ({"bcast": "absent", "gather": "absent"}, "absent"),
    ],
)
def test_source_is_live_only_when_both_are(origins, case):
    tables = {op: table_of(op, {}) for op in simx.OPS}
    assert simx.source(origins, tables).case == case


def test_a_cold_source_names_only_the_shipped_simulations_it_shows():
    tables = {op: table_of(op, {}) for op in simx.OPS}
    refs = simx.source({"bcast": "live", "gather": "cold"}, tables).numbers["reference"]
    assert simx.reference_name("gather") in refs and simx.reference_name("bcast") not in refs
    refs = simx.source({"bcast": "cold", "gather": "cold"}, tables).numbers["reference"]
    assert all(simx.reference_name(op) in refs for op in simx.OPS)


def test_the_library_runs_are_open_mpis_algorithms_as_smpi_forces_them():
    assert simx.runs("gather")["library:binomial"] == ("library", ("--cfg=smpi/gather:ompi_binomial",))
    assert simx.runs("bcast")["library:chain"] == ("library", ("--cfg=smpi/bcast:NTSL",))
    assert simx.runs("bcast")[simx.DECISION][1] == ("--cfg=smpi/coll-selector:ompi",)


# ------------------------------------------------------------------ a small live run (SMPI)
def test_a_small_live_sweep_is_simulated_then_read_from_the_cache(smpi, monkeypatch):
    monkeypatch.setattr(simx, "P", 4)
    monkeypatch.setattr(simx, "OPTIONS", {"sizes": "8,65536", "iterations": 2, "repetitions": 1})
    monkeypatch.setattr(simx, "forced", lambda op: {"library:binomial": "ompi_binomial"})
    table, wall = simx.simulate("gather")
    assert set(table.algorithm) == {"linear", "binomial", simx.DECISION, "library:binomial"}
    assert set(table.np) == {4} and set(table.mpi_library) == {smpi.library} and set(wall) == set(simx.runs("gather"))
    assert (table.t_us > 0).all() and np.isfinite(table.t_us).all()
    again, origin = simx.simulated("gather")  # every run cached now: "live", nothing simulated
    assert origin == "live"
    pd.testing.assert_series_equal(
        again.sort_values(["algorithm", "size_bytes"]).t_us.reset_index(drop=True),
        table.sort_values(["algorithm", "size_bytes"]).t_us.reset_index(drop=True),
    )
    monkeypatch.setattr(simx, "OPTIONS", {"sizes": "8,65536", "iterations": 3, "repetitions": 1})
    cold, origin = simx.simulated("gather")  # not cached: the shipped reference, not a new simulation
    assert origin == "cold" and set(cold.np) == {48}


def test_commbook_simulate_reference_kernel_gather_writes_only_the_gather(monkeypatch):
    from commbook.chapters.collectives import simulated as allreduce_page
    from commbook.cli import main
    from commbook.cli import simulate as cli_simulate

    written = []
    monkeypatch.setattr(runner, "status", lambda: runner.SMPIStatus("smpirun", "smpicc", "3.32"))
    monkeypatch.setattr(cli_simulate, "reference_runs", lambda: [])
    monkeypatch.setattr(allreduce_page, "write_reference", lambda command: written.append(("allreduce", command)))
    monkeypatch.setattr(simx, "write_reference", lambda op, command: written.append((op, command)) or ("x", {}))
    assert main(["simulate", "reference", "--kernel", "gather"]) == 0
    assert written == [("gather", "commbook simulate reference --kernel gather")]
    # the shipped references say that command (test_the_references_say_how_they_were_made...)
    assert read_measurements(simx.reference_path("gather")).meta["command"] == written[0][1]
