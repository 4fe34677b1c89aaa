"""The Jacobi pages (commbook.chapters.jacobi): its verdicts' cases and numbers follow the numbers
they are given, both ways, and read every row the page shows."""

from __future__ import annotations

import pandas as pd
import pytest

from commbook.chapters import jacobi as jac


def test_write_allocate_verdict_both_ways():
    idx = pd.MultiIndex.from_tuples([("memcpy (default build)", "copy"), ("plain loop", "copy")])
    nt = pd.DataFrame({"bandwidth_MBps": [10000, 7000], "bandwidth_wa_MBps": [15000, 10000]}, index=idx)
    wa = pd.DataFrame({"bandwidth_MBps": [7000, 7000], "bandwidth_wa_MBps": [10500, 10000]}, index=idx)
    assert jac.write_allocate(nt).case == "skipped" and jac.write_allocate(wa).case == "paid"
    assert jac.write_allocate(nt).numbers["r16"] == pytest.approx(1.0)


def test_report_check_facts_sets_the_worst_point_apart():
    runs = pd.DataFrame(
        {
            "np": [4, 24, 48],
            "machine": ["orfeo-thin", "orfeo-thin", "orfeo-gpu"],
            "measured_mlups": [100.0, 100.0, 100.0],
            "report_mlups": [90.0, 80.0, 120.0],
            "model_mlups": [101.0, 104.0, 136.0],
        }
    )
    f = jac.report_check_facts(runs)
    assert (f["worst_np"], f["worst_machine"]) == (48, "orfeo-gpu")
    assert f["report_under"] == pytest.approx((10.0, 20.0))
    assert f["consistent_over"] == pytest.approx((1.0, 4.0))


def test_jacobi_roof_direction_and_layer_cases_follow_the_run():
    grids, planes = 2 * 256**3 * 8, 3 * 256**2 * 8
    assert jac.sweep_roof(0.9, grids, 32 << 20).case == "close"
    assert jac.sweep_roof(0.48, grids, 32 << 20).numbers["ratio"] == 0.48
    assert jac.sweep_roof(0.48, grids, 32 << 20).case == "below"
    assert jac.sweep_roof(1.5, grids, 1 << 30).case == "above_in_cache"
    assert jac.sweep_roof(1.5, grids, 32 << 20).case == "above"
    assert jac.sweep_roof(1.5, grids, 0).case == "above"  # an unknown cache is no excuse
    d = jac.direction((100.0, 250.0), (100.0, 150.0))
    assert d.case == "slower" and (d.numbers["ratio_min"], d.numbers["ratio_max"]) == pytest.approx((1.5, 2.5))
    assert jac.direction((100.0, 100.0), (80.0, 84.0)).case == "same"
    assert jac.direction((100.0, 50.0), (100.0, 80.0)).case == "faster"
    # the weak pair alone flips the strong pair's case: the verdict reads both
    flipped = jac.direction((100.0, 250.0), (100.0, 95.0))
    assert flipped.case == "differ" and (flipped.numbers["strong"], flipped.numbers["weak"]) == pytest.approx(
        (2.5, 0.95)
    )
    assert jac.planes_in_cache(planes, 32 << 20).case == "fits"
    assert jac.planes_in_cache(planes, 2 << 20).case == "half"
    assert jac.planes_in_cache(planes, 1 << 20).case == "exceeds"
    assert jac.planes_in_cache(planes, 0).case == "unknown"
    assert jac.planes_in_cache(planes, 0).numbers["planes_MB"] == pytest.approx(1.572864)


def test_jacobi_write_allocate_case_reads_both_copies():
    def variants(mc16, loop_wa):
        return pd.DataFrame(
            {"bandwidth_MBps": [mc16, loop_wa / 1.5], "bandwidth_wa_MBps": [1.5 * mc16, loop_wa]},
            index=pd.MultiIndex.from_tuples([("memcpy (default build)", "copy"), ("plain loop", "copy")]),
        )

    v = jac.write_allocate(variants(10000.0, 18000.0))
    assert v.case == "unclear" and v.numbers["r16"] == pytest.approx(10 / 18)
    assert jac.write_allocate(variants(18000.0, 18500.0)).case == "skipped"
    assert jac.write_allocate(variants(12000.0, 18000.0)).case == "paid"


def test_jacobi_same_field_reads_every_row_of_the_table():
    assert jac.same_field([7, 7, 7, 7, 7]).case == "same"
    # the 3-rank run, the row that does not divide evenly, alone differs
    v = jac.same_field([7, 7, 7, 7, 8])
    assert v.case == "differ" and v.numbers == {"runs": 5, "distinct": 2}


def test_jacobi_halo_verdict_reads_the_rows_with_both_bandwidths():
    def row(grid, model, measured_share, model_share):
        return {"grid": grid, "model": model, "measured halo share": measured_share, "model comm share": model_share}

    # the B = 2b rows (all the old sentence read) are below the measurement, the B = b rows above:
    rows = [
        row("2x1x1", "B = b", 0.05, 0.08),
        row("2x1x1", "B = 2b", 0.05, 0.04),
        row("1x1x2", "B = b", 0.06, 0.08),
        row("1x1x2", "B = 2b", 0.06, 0.04),
    ]
    v = jac.halo_vs_model(rows)
    assert v.case == "some_above" and v.numbers["above"] == 2 and v.numbers["rows"] == 4
    assert v.numbers["max_model_share"] == 0.08
    assert jac.halo_vs_model([r | {"measured halo share": 0.01} for r in rows]).case == "none_above"
    assert jac.halo_vs_model([r | {"measured halo share": 0.5} for r in rows]).case == "all_above"


def _twelve(core, socket, node):
    return pd.DataFrame(
        {
            "machine": "orfeo-thin",
            "scaling": "strong",
            "np": 12,
            "mapping": ["core", "socket", "node"],
            "measured_mlups": [core, socket, node],
        }
    )


def test_jacobi_placement_reads_every_mapping_of_twelve_processes():
    assert jac.placement12(_twelve(1324.0, 1336.0, 1334.0)).case == "flat"
    assert jac.placement12(_twelve(1200.0, 1336.0, 1334.0)).case == "spread_faster"
    assert jac.placement12(_twelve(1400.0, 1336.0, 1334.0)).case == "packed_faster"
    # socket beats core (all the old sentence read), but map by node is far below: not "spreading helped"
    v = jac.placement12(_twelve(1324.0, 1400.0, 1200.0))
    assert v.case == "mixed" and v.numbers["spread_min"] == 1200.0 and v.numbers["spread_max"] == 1400.0


def test_jacobi_placement_of_the_shipped_orfeo_runs_is_flat():
    from commbook import orfeo
    from commbook.models import jacobi as jm

    seed = orfeo.summary_table("jacobi_seed")
    v = jac.placement12(jm.orfeo_comparison(orfeo.load("jacobi")[0], seed))
    assert v.case == "flat" and v.numbers["range"] < 2


def test_noncompute_facts_read_every_multiprocess_run():
    runs = pd.DataFrame(
        {
            "np": [1, 4, 48],
            "machine": ["orfeo-thin", "orfeo-thin", "orfeo-gpu"],
            "measured_mlups": [100.0, 1728.0, 3456.0],  # sweeps of 1200^3 in 17.28 s, 1 s, 0.5 s
            "noncompute_s": [0.2, 0.03, 0.02],
            "imbalance_s": [0.0, 0.01, 0.1],
            "model_Tc_s": [0.0, 0.005, 0.001],
        }
    )
    f = jac.noncompute_facts(runs)
    assert f["many_ms"] == pytest.approx((20.0, 30.0)) and f["one_ms"] == pytest.approx((200.0, 200.0))
    assert f["share"] == pytest.approx((3.0, 4.0))  # 30 ms of 1 s, 20 ms of 0.5 s
    assert f["imbalance_over_tc"] == pytest.approx((2.0, 100.0))
    assert (f["imbalance_np"], f["imbalance_machine"]) == (48, "orfeo-gpu")


def test_the_grids_against_the_cache_follow_the_sizes():
    from commbook.chapters import jacobi

    grids = 2 * 256**3 * 8  # 268 MB
    assert jacobi.grids_vs_cache(grids, 0).case == "unknown"
    assert jacobi.grids_vs_cache(grids, 32 << 20).case == "far"
    assert jacobi.grids_vs_cache(grids, 128 << 20).case == "beyond"
    v = jacobi.grids_vs_cache(grids, 503_000_000)
    assert v.case == "inside" and v.numbers == {"grids_MB": grids / 1e6, "llc_MB": 503.0}


# --------------------------------------------------------------------- simulated THIN nodes
def _scaling(sim_mlups, model_mlups, nps=(1, 24, 48, 96, 192)):
    return pd.DataFrame(
        {
            "processes": nps,
            "nodes": [-(-n // 24) for n in nps],
            "simulated MLUP/s": sim_mlups,
            "model MLUP/s": model_mlups,
            "simulated halo share": [0.0, 0.001, 0.01, 0.05, 0.08],
            "model / simulated": [m / s for m, s in zip(model_mlups, sim_mlups)],
        }
    )


def test_model_vs_simulation_cases_read_every_row():
    from commbook.chapters.jacobi import simulated as sim

    v = sim.model_vs_simulation(_scaling([100, 2400, 4800, 9600, 19200], [100, 2400, 4810, 9650, 19300]))
    assert v.case == "agree" and v.numbers["rows"] == 5
    v = sim.model_vs_simulation(_scaling([100, 2400, 4800, 9000, 17600], [100, 2400, 4850, 9600, 19200]))
    assert v.case == "part_across_nodes"
    assert v.numbers["gap_np"] == 192 and v.numbers["gap_nodes"] == 8
    assert v.numbers["gap_max"] == pytest.approx(19200 / 17600 - 1)
    assert v.numbers["halo_at_gap"] == 0.08 and v.numbers["np_last"] == 192
    # the largest gap at 96 processes, not at the last row: the halo quoted is that row's
    v = sim.model_vs_simulation(_scaling([100, 2400, 4800, 8800, 19000], [100, 2400, 4850, 9600, 19200]))
    assert v.case == "part_across_nodes" and v.numbers["gap_np"] == 96
    assert v.numbers["halo_at_gap"] == 0.05 and v.numbers["np_last"] == 192
    # the one-process row alone off: the old "from 2 nodes on" reading would miss it
    v = sim.model_vs_simulation(_scaling([90, 2400, 4800, 9000, 17600], [100, 2400, 4850, 9600, 19200]))
    assert v.case == "part_within_node" and v.numbers["gap_one_node"] == pytest.approx(100 / 90 - 1)
    v = sim.model_vs_simulation(_scaling([100, 2400, 4800, 9600, 21000], [100, 2400, 4800, 9600, 19200]))
    assert v.case == "simulation_faster" and v.numbers["gap_min"] == pytest.approx(19200 / 21000 - 1)
    assert v.numbers["gap_min_np"] == 192
    # the simulation faster at 192 (-3 %), the model faster by more at 96 (+5 %): not "the simulation is faster"
    v = sim.model_vs_simulation(_scaling([100, 2400, 4800, 9600, 19800], [100, 2400, 4800, 10080, 19200]))
    assert v.case == "both_ways" and v.numbers["gap_top"] == pytest.approx(0.05) and v.numbers["gap_top_np"] == 96
    assert v.numbers["gap_min"] == pytest.approx(19200 / 19800 - 1) and v.numbers["gap_min_np"] == 192
    # the simulation's lead the larger: the model's lead is still quoted as the model's
    v = sim.model_vs_simulation(_scaling([100, 2400, 4800, 9600, 21000], [100, 2400, 4800, 10080, 19200]))
    assert v.case == "both_ways" and v.numbers["gap_max"] < 0 < v.numbers["gap_top"] == pytest.approx(0.05)


def test_the_shipped_simulation_parts_from_the_model_across_nodes(monkeypatch):
    from commbook import orfeo
    from commbook.chapters.jacobi import simulated as sim
    from commbook.models import jacobi as jm
    from commbook.simulate import runner

    monkeypatch.setattr(runner, "status", lambda: runner.SMPIStatus(None, None, ""))
    runs, options = sim.simulated_scaling()
    assert sim.simulation_source(runs).case == "reference"
    _, T_l, B_half = jm.seed_parameters(orfeo.summary_table("jacobi_seed"))[("orfeo-thin", "node")]
    table = sim.scaling_table(runs, options, T_l, 2 * B_half)
    assert list(table.nodes) == [1, 1, 2, 4, 8]
    assert table["model / simulated"].iloc[0] == pytest.approx(1, abs=1e-6)  # same compute calibration
    v = sim.model_vs_simulation(table)
    assert v.case == "part_across_nodes"
    assert v.numbers["gap_np"] == 192 and 0.05 < v.numbers["gap_max"] < 0.15
