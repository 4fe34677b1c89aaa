"""Out of sample: the simulated ring (the book's ring.c on simulated THIN nodes, SMPI calibrated on
ping-pong only) against the ring times two students measured on ORFEO (P = 2..48).

Pairs: Francesc0rtu's blocking ring with ring.c's MPI_Sendrecv ring (--nonblocking 0), the
non-blocking rings of Francesc0rtu and MatteoScorcia with ring.c's MPI_Isend/MPI_Irecv ring
(--nonblocking 1); ranks placed by core (Francesc0rtu's files say so; MatteoScorcia's do not,
and map-by core is assumed: the 'mapping' column says which). The students sent one int; the
simulated ring sends 4 bytes. Errors are relative to the measured time: the median and the
shares within 10 % and 25 %, per pair and overall. Beside each simulated time, the book's
formula for the same ring (commbook.models.ring: m · P · max_c(λ_c + n/b_c) with the ping-pong
links of data/orfeo/pingpong_seed.csv, m = 2 messages per step blocking, 1 non-blocking), so the
table says where the simulator and the formula differ. ``commbook simulate validate`` writes
``data/validation/simulated_ring.csv``.
"""

from __future__ import annotations

from pathlib import Path

from .. import config

OPTIONS = {"iterations": 10, "repetitions": 1}
PAIRS = [  # (dataset, algorithm in the data, ring.c's --nonblocking, mapping, how the mapping is known)
    ("francesc0rtu/ring", "blocking", 0, "core", "stated"),
    ("francesc0rtu/ring", "nonblocking", 1, "core", "stated"),
    ("matteoscorcia/ring", "nonblocking", 1, "core", "assumed"),
]


def table_path() -> Path:
    return config.data_dir() / "validation" / "simulated_ring.csv"


def measured_ring():
    from .. import orfeo

    df, caption = orfeo.load("ring", machine="orfeo-thin")
    return df, caption


def ring_points(nps=range(2, 49), sim=None):
    """One row per (pair, P): measured and simulated µs per ring and the relative error."""
    import pandas as pd

    from .. import orfeo
    from ..models.hockney import Hockney
    from ..models.ring import Placement, ring_time
    from .cluster import SimulatedCluster

    sim = sim or SimulatedCluster("orfeo-thin", 2)
    df, _ = measured_ring()
    links = {c: Hockney(lam, bw) for c, (lam, bw) in orfeo.link_parameters("ucx").items()}
    node = orfeo.node("orfeo-thin")
    rows = []
    for dataset, algorithm, nonblocking, mapping, known in PAIRS:
        meas = df[(df.dataset == dataset) & (df.algorithm == algorithm)].set_index("np").t_us
        for p in nps:
            if p not in meas.index:
                continue
            run = sim.run("ring", {**OPTIONS, "nonblocking": nonblocking}, np=p, map_by=mapping)
            t_sim = float(run.output.table.t_median_us.iloc[0])
            placement = Placement(node.cores_per_socket, node.sockets, mapping)
            formula = float(ring_time([p], 4, links, placement, messages_per_step=1 if nonblocking else 2)[0])
            rows.append(
                {
                    "dataset": dataset,
                    "algorithm": algorithm,
                    "mapping": f"{mapping} ({known})",
                    "np": p,
                    "measured_us": float(meas.loc[p]),
                    "simulated_us": round(t_sim, 4),
                    "rel_error": round(t_sim / float(meas.loc[p]) - 1.0, 4),
                    "formula_us": round(formula, 4),
                    "formula_rel_error": round(formula / float(meas.loc[p]) - 1.0, 4),
                }
            )
    return pd.DataFrame(rows)


def summary(points):
    """Median |error| and the shares within 10 % and 25 %, per pair and overall."""
    import pandas as pd

    def one(g):
        e = g.rel_error.abs()
        return pd.Series(
            {
                "points": len(e),
                "median_abs_error": round(float(e.median()), 3),
                "within_10pct": round(float((e <= 0.10).mean()), 3),
                "within_25pct": round(float((e <= 0.25).mean()), 3),
                "median_signed_error": round(float(g.rel_error.median()), 3),
                "formula_median_abs_error": round(float(g.formula_rel_error.abs().median()), 3),
                "formula_within_25pct": round(float((g.formula_rel_error.abs() <= 0.25).mean()), 3),
            }
        )

    per = points.groupby(["dataset", "algorithm"]).apply(one, include_groups=False).reset_index()
    overall = one(points).to_frame().T.assign(dataset="all", algorithm="all")
    return pd.concat([per, overall], ignore_index=True)


def write_table(path: Path | None = None, points=None) -> Path:
    """The points with a header naming the data, the simulator and the calibration."""
    import io

    from ..data import atomic_write_text
    from . import runner

    points = ring_points() if points is None else points
    _, caption = measured_ring()
    s = summary(points)
    allrow = s[s.dataset == "all"].iloc[0]
    buf = io.StringIO()
    for line in [
        "what: simulated ring (ring.c under SMPI on generated orfeo-thin nodes, calibrated on ping-pong only) against ORFEO's measured rings",
        f"simulator: {runner.status().library}; calibration {runner.calibration_id()}; kernel options {OPTIONS}",
        f"measured: {caption}",
        f"overall: median |error| {allrow.median_abs_error:.3f}, within 10 % {allrow.within_10pct:.3f}, within 25 % {allrow.within_25pct:.3f} of {int(allrow.points)} points",
        f"formula: median |error| {allrow.formula_median_abs_error:.3f}, within 25 % {allrow.formula_within_25pct:.3f}",
        "command: commbook simulate validate",
    ]:
        buf.write(f"# {line}\n")
    points.to_csv(buf, index=False, lineterminator="\n")
    path = Path(path) if path else table_path()
    atomic_write_text(path, buf.getvalue())
    return path
