"""Out of sample: the book's jacobi3d under SMPI against ORFEO's Jacobi runs on THIN nodes, the
same rows on which data/validation/jacobi.csv checks the report's model P(L, N) (its formula
column is that table's model).

Which runs: every THIN row of the model's table (strong scaling of 1200^3, weak scaling of 700^3
or 1200^3 per process, map-by core, socket or node, P = 1..48 on 2 simulated THIN nodes). The GPU
rows are left out: the calibration is THIN's ping-pong and no GPU platform is calibrated.

How: these grids do not fit this machine (1200^3 on 48 ranks: 28 GB of fields), so each run is
simulated folded (jacobi3d --sim-fold 1: the halo messages of the ORFEO process grid, same bytes,
neighbours and placement, and the compute charged at the report's one-process sweep rate,
calibration.jacobi_compute_lups); a folded run checks nothing, so the same process grid and
placement is also run unfolded at a small L with the kernel's checks on (column checked_L). The
kernel's boundaries are fixed where the students' code was periodic: a rank at the edge of the
process grid sends fewer faces. ``commbook simulate validate --what jacobi`` writes
``data/validation/simulated_jacobi.csv``.
"""

from __future__ import annotations

from pathlib import Path

from .. import config
from ..verdict import Verdict, cases

MACHINE = "orfeo-thin"
NODES = 2
SWEEPS = 2  # a simulation is deterministic: every sweep takes the same simulated time
CHECK_PER_RANK = 4  # the unfolded check's points per rank and dimension
GOAL = 0.25  # the share within 25 %, as for the ring and the collectives
ALIKE = 0.01  # medians closer than one point of error: neither is ahead


def table_path() -> Path:
    return config.data_dir() / "validation" / "simulated_jacobi.csv"


def measured_runs():
    """The model table's THIN rows: the runs simulated, with the formula's MLUP/s."""
    from .. import validate

    ja = validate.load_table("jacobi")
    return ja[ja.machine == MACHINE].reset_index(drop=True)


def kernel_options(scaling: str, grid: str, global_grid: str) -> dict:
    """jacobi3d's options for one ORFEO run: --L of the whole cube (strong) or of each rank (weak)."""
    from ..models.jacobi import parse_grid

    dims, G = parse_grid(grid), parse_grid(global_grid)
    per = {g // d for g, d in zip(G, dims, strict=True)} if scaling == "weak" else set(G)
    if len(per) != 1 or (scaling == "weak" and any(g % d for g, d in zip(G, dims, strict=True))):
        raise ValueError(
            f"{scaling} run {global_grid} on grid {grid} is not a cube per {'rank' if scaling == 'weak' else 'run'}"
        )
    return {"L": per.pop(), "weak": int(scaling == "weak"), "grid": grid}


def jacobi_points(runs=None, sim=None):
    """One row per THIN run of the model's table: measured, simulated and formula MLUP/s."""
    import pandas as pd

    from . import calibration, runner
    from .cluster import SimulatedCluster

    runs = measured_runs() if runs is None else runs
    sim = sim or SimulatedCluster(MACHINE, NODES)
    lups = calibration.jacobi_compute_lups(MACHINE)
    done = {}
    rows = []
    for r in runs.rename(columns={"global": "global_grid"}).itertuples():
        key = (r.mapping, int(r.np), r.grid, r.scaling, r.global_grid)
        if key not in done:
            opts = kernel_options(r.scaling, r.grid, r.global_grid)
            run = runner.run(
                "jacobi3d",
                sim.platform,
                int(r.np),
                r.mapping,
                {**opts, "sweeps": SWEEPS, "sim-lups": lups, "sim-fold": 1},
                sim.timeout,
                unchecked=True,
            )
            dims = max(int(x) for x in r.grid.split("x"))
            check_L = CHECK_PER_RANK if r.scaling == "weak" else CHECK_PER_RANK * dims
            runner.run(  # the same grid and placement with the kernel's checks (raises if they fail)
                "jacobi3d",
                sim.platform,
                int(r.np),
                r.mapping,
                {"L": check_L, "weak": opts["weak"], "grid": r.grid, "sweeps": 3},
                sim.timeout,
            )
            t = run.output.table.iloc[0]
            done[key] = (float(t.mlups), float(t.halo_us), float(t.compute_us), check_L)
        mlups, halo, compute, check_L = done[key]
        rows.append(
            {
                "mapping": r.mapping,
                "np": int(r.np),
                "grid": r.grid,
                "global": r.global_grid,
                "scaling": r.scaling,
                "measured_mlups": float(r.measured_mlups),
                "simulated_mlups": round(mlups, 3),
                "rel_error": round(mlups / float(r.measured_mlups) - 1.0, 4),
                "formula_mlups": float(r.model_mlups),
                "formula_rel_error": round(float(r.model_over_measured) - 1.0, 4),
                "halo_us": round(halo, 3),
                "compute_us": round(compute, 3),
                "checked_L": check_L,
                "source": r.source,
            }
        )
    return pd.DataFrame(rows)


def errors(points) -> dict:
    """Median |error| and the shares within 15 % and 25 %, simulated and formula, as fractions."""
    out = {"points": len(points)}
    for name, col in (("sim", "rel_error"), ("formula", "formula_rel_error")):
        e = points[col].abs()
        out |= {
            f"{name}_median_abs_error": round(float(e.median()), 4),
            f"{name}_within_15pct": round(float((e <= 0.15).mean()), 4),
            f"{name}_within_25pct": round(float((e <= GOAL).mean()), 4),
        }
    return out


def summary(points):
    """errors() per scaling and over all runs: simulated beside formula."""
    import pandas as pd

    rows = [{"scaling": k, **errors(g)} for k, g in points.groupby("scaling")]
    rows.append({"scaling": "all", **errors(points)})
    return pd.DataFrame(rows).set_index("scaling")


def write_table(path: Path | None = None, points=None) -> Path:
    """The points with a header naming the data, the simulator, the subset and both errors."""
    from . import calibration, runner
    from .validation import write_with_header

    points = jacobi_points() if points is None else points
    e = errors(points)
    left_out = int((measured_runs_all().machine != MACHINE).sum())
    lines = [
        "what: SIMULATED jacobi3d (the book's kernel under SMPI on generated orfeo-thin nodes, network calibrated on ping-pong only) against ORFEO's measured Jacobi runs",
        f"simulator: {runner.status().library}; calibration {runner.calibration_id()}; {NODES} nodes; --sweeps {SWEEPS} --sim-fold 1",
        f"compute: --sim-lups {calibration.jacobi_compute_lups(MACHINE)}: {calibration.JACOBI_COMPUTE_SOURCE}",
        "folded: these grids do not fit this machine (1200^3 on 48 ranks needs 28 GB), so each run sends the ORFEO process grid's halo messages and charges the compute without holding a field (NOT CHECKED); the same grid and placement ran unfolded with the kernel's checks at L = checked_L (per rank for weak scaling)",
        f"runs: every {MACHINE} row of data/validation/jacobi.csv (the report's model's table; formula_* is its model); left out: its {left_out} orfeo-gpu rows (no calibrated GPU platform)",
        "boundaries: jacobi3d's are fixed, the students' code periodic (edge ranks send fewer faces here)",
        f"overall: simulated median |error| {e['sim_median_abs_error']:.3f}, within 25 % {e['sim_within_25pct']:.3f}; formula median |error| {e['formula_median_abs_error']:.3f}, within 25 % {e['formula_within_25pct']:.3f}; {e['points']} runs",
        "command: commbook simulate validate --what jacobi",
    ]
    return write_with_header(path or table_path(), lines, points)


def measured_runs_all():
    from .. import validate

    return validate.load_table("jacobi")


def load_shipped():
    import pandas as pd

    return pd.read_csv(table_path(), comment="#")


@cases("simulator_ahead", "formula_ahead", "alike")
def jacobi_verdict(points=None) -> Verdict:
    """Every row of the simulated Jacobi table (default: the shipped one, all of ORFEO's THIN
    runs): the simulator is ahead when its median |error| is below the formula's by more than
    ALIKE, behind when above by more, alike otherwise. Numbers in %: both medians and shares
    within 25 %; the runs; the GPU runs left out of the model's table."""
    points = load_shipped() if points is None else points
    e = errors(points)
    diff = e["sim_median_abs_error"] - e["formula_median_abs_error"]
    case = "alike" if abs(diff) <= ALIKE else ("simulator_ahead" if diff < 0 else "formula_ahead")
    numbers = {
        "runs": e["points"],
        "error": 100 * e["sim_median_abs_error"],
        "formula_error": 100 * e["formula_median_abs_error"],
        "within25": 100 * e["sim_within_25pct"],
        "formula_within25": 100 * e["formula_within_25pct"],
        "goal": 100 * GOAL,
        "gpu_left_out": int((measured_runs_all().machine != MACHINE).sum()),
    }
    return Verdict(case, numbers)
