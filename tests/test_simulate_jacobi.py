"""The simulated Jacobi runs beside the report's model (commbook.simulate.jacobi_validation): the
shipped table's provenance and shape, its verdict's cases, and a folded run against an unfolded one."""

import pytest

from commbook import validate
from commbook.simulate import calibration, cluster, jacobi_validation, runner


def shipped_header() -> str:
    return "".join(line for line in jacobi_validation.table_path().read_text().splitlines(True) if line.startswith("#"))


def test_the_table_says_it_is_simulated_and_how():
    head = shipped_header()
    assert "SIMULATED jacobi3d" in head
    assert f"calibration {runner.calibration_id()}" in head  # simulated with today's calibration
    assert f"--sim-lups {calibration.jacobi_compute_lups('orfeo-thin')}" in head
    gpu = int((validate.load_table("jacobi").machine == "orfeo-gpu").sum())
    assert f"left out: its {gpu} orfeo-gpu rows" in head
    assert "command: commbook simulate validate --what jacobi" in head


def test_the_table_holds_every_thin_run_of_the_model_table_and_its_formula():
    pts = jacobi_validation.load_shipped()
    model = jacobi_validation.measured_runs()
    keys = ["mapping", "np", "grid", "global", "scaling", "source"]
    assert sorted(map(tuple, pts[keys].astype(str).values)) == sorted(map(tuple, model[keys].astype(str).values))
    merged = pts.merge(model[keys + ["measured_mlups", "model_mlups"]], on=keys + ["measured_mlups"])
    assert len(merged) == len(pts)
    assert (merged.formula_mlups == merged.model_mlups).all()
    assert (pts.rel_error - (pts.simulated_mlups / pts.measured_mlups - 1)).abs().max() < 1e-3
    assert (pts.checked_L >= 4).all() and (pts.simulated_mlups > 0).all()
    e = jacobi_validation.errors(pts)
    assert f"simulated median |error| {e['sim_median_abs_error']:.3f}" in shipped_header()


def test_kernel_options_read_the_orfeo_grid():
    assert jacobi_validation.kernel_options("strong", "4x4x3", "1200x1200x1200") == {
        "L": 1200,
        "weak": 0,
        "grid": "4x4x3",
    }
    assert jacobi_validation.kernel_options("weak", "24x2x1", "16800x1400x700") == {
        "L": 700,
        "weak": 1,
        "grid": "24x2x1",
    }
    with pytest.raises(ValueError, match="not a cube"):
        jacobi_validation.kernel_options("weak", "2x2x1", "1400x700x700")


def test_the_verdict_of_the_shipped_table():
    pts = jacobi_validation.load_shipped()
    v = jacobi_validation.jacobi_verdict()
    e = jacobi_validation.errors(pts)
    assert v.numbers["runs"] == len(pts)
    assert v.numbers["error"] == pytest.approx(100 * e["sim_median_abs_error"])
    assert v.numbers["formula_error"] == pytest.approx(100 * e["formula_median_abs_error"])
    assert v.case == "alike"  # same T_s, and the halo is a few % of a sweep


def test_every_row_counts_the_weak_scaling_runs_flip_it():
    """Made far off on the weak-scaling rows only (the strong ones untouched), the simulator falls
    behind; made exact there, it draws ahead: the verdict reads every row."""
    pts = jacobi_validation.load_shipped()
    weak = pts.scaling == "weak"
    off = pts.copy()
    off.loc[weak, "rel_error"] = 0.5
    assert jacobi_validation.jacobi_verdict(off).case == "formula_ahead"
    exact = pts.copy()
    exact.loc[weak, "rel_error"] = 0.0
    exact.loc[~weak, "rel_error"] = 0.0
    assert jacobi_validation.jacobi_verdict(exact).case == "simulator_ahead"


def test_a_folded_run_times_the_messages_of_the_unfolded_one(smpi):
    """--sim-fold sends the same bytes to the same neighbours as the real halo exchange: the same
    simulated halo and compute time, and it says NOT CHECKED, which only unchecked=True accepts."""
    sim = cluster.SimulatedCluster("orfeo-thin", 2)
    opts = {"L": 24, "sweeps": 2, "check": 0, "grid": "3x2x2", "sim-lups": 10_000_000}
    real = runner.run("jacobi3d", sim.platform, 12, "node", opts, sim.timeout).output.table.iloc[0]
    folded = runner.run("jacobi3d", sim.platform, 12, "node", {**opts, "sim-fold": 1}, sim.timeout, unchecked=True)
    assert folded.output.result.startswith(runner.UNCHECKED)
    f = folded.output.table.iloc[0]
    assert f.halo_us == pytest.approx(real.halo_us, rel=1e-6)
    assert f.t_median_us == pytest.approx(real.t_median_us, rel=1e-6)
    from commbook import kernels

    with pytest.raises(kernels.KernelFailed, match="NOT CHECKED"):
        runner.run("jacobi3d", sim.platform, 12, "node", {**opts, "sim-fold": 1}, sim.timeout)
    no_rate = {"L": 24, "sweeps": 1, "sim-fold": 1}
    with pytest.raises(kernels.KernelError, match="needs --sim-lups"):
        runner.run("jacobi3d", sim.platform, 2, "core", no_rate, sim.timeout, unchecked=True)


def test_shipped_points_are_reproduced_by_a_new_simulation(smpi):
    """Two shipped runs (strong on two nodes, weak on one socket), simulated afresh: the same rows."""
    import pandas as pd

    runs = jacobi_validation.measured_runs()
    pick = runs[
        ((runs.scaling == "strong") & (runs.mapping == "node") & (runs.np == 12))
        | ((runs.scaling == "weak") & (runs.mapping == "socket") & (runs.np == 4))
    ]
    new = jacobi_validation.jacobi_points(pick)
    shipped = jacobi_validation.load_shipped()
    keys = ["mapping", "np", "grid", "global", "scaling", "source"]
    both = new.merge(shipped, on=keys, suffixes=("", "_shipped"))
    assert len(both) == len(pick) >= 3
    pd.testing.assert_series_equal(both.simulated_mlups, both.simulated_mlups_shipped, check_names=False)
    pd.testing.assert_series_equal(both.halo_us, both.halo_us_shipped, check_names=False)
