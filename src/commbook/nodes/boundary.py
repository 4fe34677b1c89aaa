"""The node boundary, measured on emulated nodes: what the ping-pong and ring chapters show.

* :func:`measure` brings up two emulated nodes (commbook.nodes), runs `commbook measure` on
  their login node as a user would on a cluster (the launch agent and hostfile of the site
  environment, `--map-by` placing the ranks), and removes the nodes again: a ping-pong inside a
  node and across nodes, and the ring for P = 1..4 on 2 nodes x 2 slots (`--map-by core`).
* Where no emulated nodes can be made (no root and no user namespaces, or
  ``COMMBOOK_NODES_REFERENCE=1``), :func:`load` reads the reference run shipped in
  ``data/reference/emulated-nodes/`` instead and says so; ``python -m commbook.nodes.boundary
  --write-reference`` remakes that run (its header records the command).
* :func:`fit_links` fits Hockney's λ and b per link class; :func:`ring_prediction` feeds them to
  the link-class ring model (commbook.models.ring) and compares the predicted step at the
  boundary with the measured one.

These links are TCP over a virtual Ethernet pair on one machine (optionally capped with tc tbf):
no network card, no wire. They show where the boundary is and what crossing it costs here, not
what a cluster's network costs.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import config, data, kernels, machine, mpi_env, quiet_runs
from ..verdict import Verdict, cases
from . import available

REFERENCE = "emulated-nodes"
LINKS = {"core": "inside a node (shared memory)", "node": "across nodes (TCP over a veth pair)"}
PINGPONG_SIZES = "0:4M"
RING_P = (1, 2, 3, 4)  # P = 1 is measured for the record; the model starts at P = 2
ORFEO_TRANSPORTS = {"ucx": "UCX over InfiniBand", "ob1-tcp": "TCP over Ethernet"}
SLOTS = 2  # per emulated node: P = 1, 2 stay on node1, P = 3, 4 cross


@dataclass
class BoundaryRun:
    pingpong: "object"  # tidy table; its mapping column is the link class (core / node)
    ring: "object"  # tidy table of the ring, P = 1..4, --map-by core
    meta: dict
    live: bool
    why_reference: str = ""
    shared: bool = False  # live, measured earlier in this book build by another page


def reference_reason() -> str:
    """Why the page draws the shipped run ('' when it can measure live)."""
    if config.get("COMMBOOK_NODES_REFERENCE"):
        return "COMMBOOK_NODES_REFERENCE is set"
    info = mpi_env.detect()
    if not info.family.crosses_emulated_nodes:  # MPICH does only through Slurm, not this mpiexec run
        return f"the live run launches through Open MPI's agent between emulated nodes; this page was built with {info.version}"
    return available() or ""


def _measure_cmd(kernel: str, np_: int, map_by: str, extra: list[str], out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "commbook.cli",
        "measure",
        kernel,
        "--np",
        str(np_),
        "--map-by",
        map_by,
        "--quiet",
        "--out",
        str(out),
        *extra,
    ]


def measure(rate: str = "", timeout: float = 600) -> BoundaryRun:
    """Measure live on two emulated nodes (made and removed here)."""
    from .. import mpi_env
    from . import EmulatedCluster, launch

    # runs that stay on node1 bind a rank per core, as a real node would (launch.one_node_binding)
    binding = launch.one_node_binding(mpi_env.detect().family)
    scratch = Path(tempfile.mkdtemp(prefix="commbook-boundary-"))
    scratch.chmod(0o755)
    tables, metas = {}, {}
    machine_name = f"{machine.name()}-emulated-nodes"
    t0 = time.perf_counter()
    try:
        with EmulatedCluster(nodes=2, rate=rate) as cluster, quiet_runs.measuring():
            runs = [
                ("pingpong", "core", 2, ["--sizes", PINGPONG_SIZES]),
                ("pingpong", "node", 2, ["--sizes", PINGPONG_SIZES]),
            ]
            runs += [("ring", "core", P, ["--size", "4", "--iterations", "200", "--repetitions", "7"]) for P in RING_P]
            for kernel, map_by, P, extra in runs:
                out = scratch / f"{kernel}-{map_by}-{P}.csv"
                # the machine is this one, not the login node's hostname
                proc = cluster.run(
                    _measure_cmd(kernel, P, map_by, extra, out),
                    timeout=timeout,
                    cwd=str(scratch),
                    env={"COMMBOOK_MACHINE": machine_name, **(binding if map_by == "core" and P <= SLOTS else {})},
                )
                if proc.returncode != 0:
                    said = (proc.stderr.strip().splitlines() or ["no message"])[-1]
                    raise RuntimeError(f"{kernel} on emulated nodes (--map-by {map_by}, np {P}) failed: {said}")
                m = data.read_measurements(out)  # mapping: core or node, from where ranks ran
                tables[kernel, map_by, P] = m.table
                metas[kernel, map_by, P] = m.meta
    finally:
        for f in scratch.iterdir():
            f.unlink()
        scratch.rmdir()
    pp = data.concat([tables["pingpong", m, 2] for m in ("core", "node")])
    ring = data.concat([tables["ring", "core", P] for P in RING_P])
    meta = dict(metas["pingpong", "node", 2])
    meta.update(
        {
            "nodes": 2,
            "rate": rate or "uncapped",
            "seconds": f"{time.perf_counter() - t0:.0f}",
            "link": "TCP over a veth pair and a bridge on one machine"
            + (f", capped at {rate} (tc tbf)" if rate else ", uncapped"),
        }
    )
    return BoundaryRun(pp, ring, meta, live=True)


def reference_dir() -> Path:
    return config.data_dir() / "reference" / REFERENCE


def load() -> BoundaryRun:
    """The live run when emulated nodes can be made here, else the shipped reference. In a book
    build (COMMBOOK_BUILD_SHARED names its folder) the first page to ask measures, and the next
    reads that run: the ping-pong and ring labs show one run (about 40 s) made once."""
    why = reference_reason()
    if not why:
        return _live_once_per_build()
    pp = data.read_measurements(reference_dir() / "boundary-pingpong.csv")
    ring = data.read_measurements(reference_dir() / "boundary-ring.csv")
    return BoundaryRun(pp.table, ring.table, pp.meta, live=False, why_reference=why)


def _live_once_per_build() -> BoundaryRun:
    folder = config.get("COMMBOOK_BUILD_SHARED")
    if not folder:
        return measure()
    pp_file, ring_file = (Path(folder) / f"boundary-{k}.csv" for k in ("pingpong", "ring"))
    if pp_file.exists():  # written last: the pair is complete
        pp, ring = data.read_measurements(pp_file), data.read_measurements(ring_file)
        return BoundaryRun(pp.table, ring.table, pp.meta, live=True, shared=True)
    run = measure()
    Path(folder).mkdir(parents=True, exist_ok=True)
    data.write_measurements(ring_file, run.ring, run.meta)
    data.write_measurements(pp_file, run.pingpong, run.meta)
    return run


def write_reference(run: BoundaryRun, command: str) -> list[Path]:
    meta = {k: v for k, v in run.meta.items() if k not in ("command", "file")}
    meta.update(
        {
            "command": command,
            "source": "commbook.nodes.boundary.measure() on emulated "
            "nodes of this machine; see commbook/nodes/boundary.py",
        }
    )
    folder = reference_dir()
    folder.mkdir(parents=True, exist_ok=True)

    def shipped(table):  # each row's source: the run's file name, not the scratch folder it was in
        return table.assign(source=table.source.map(lambda s: Path(s).name if s else s))

    return [
        data.write_measurements(folder / "boundary-pingpong.csv", shipped(run.pingpong), meta),
        data.write_measurements(folder / "boundary-ring.csv", shipped(run.ring), meta),
    ]


# -- fits and the ring model -----------------------------------------------------------------


def fit_links(run: BoundaryRun) -> dict:
    """Hockney (λ, b) per link class, fitted on relative error (commbook.fit)."""
    from .. import fit

    out = {}
    for link, g in run.pingpong.groupby("mapping"):
        g = g.sort_values("size_bytes")
        out[link] = fit.fit_hockney(g["size_bytes"].to_numpy(float), g["t_us"].to_numpy(float), n_boot=0)
    return out


@cases("live", "shared", "reference")
def provenance(run: BoundaryRun) -> Verdict:
    """Where the run's numbers come from, as a case the page words (the ping-pong and ring labs):
    measured by this page, by an earlier page of this book build, or the shipped reference.
    Every case carries every number: the page parses the words of all cases."""
    numbers = {
        "nodes": float(run.meta.get("nodes", 2)),
        "library": kernels.short_library(run.meta.get("mpi_library", "")),
        "why": run.why_reference or "-",
        "machine": str(run.meta.get("machine", "?")),
        "date": str(run.meta.get("date", "?"))[:10],
        "command": f"`{run.meta.get('command', '?')}`",
    }
    return Verdict("reference" if not run.live else "shared" if run.shared else "live", numbers)


@cases("higher", "lower", "latency_not_higher")
def crossing(links: dict) -> Verdict:
    """Latency and bandwidth across nodes against inside one (the fitted links)."""
    core, node = links["core"], links["node"]
    numbers = {
        "lambda_core": core.lambda_us,
        "lambda_node": node.lambda_us,
        "lambda_ratio": node.lambda_us / core.lambda_us,
        "b_core": core.bandwidth_MBps,
        "b_node": node.bandwidth_MBps,
    }
    if node.lambda_us <= core.lambda_us:  # TCP slower to start than shared memory: else the fit failed
        return Verdict("latency_not_higher", numbers)
    return Verdict("higher" if node.bandwidth_MBps > core.bandwidth_MBps else "lower", numbers)


@dataclass
class RingPrediction:
    P: np.ndarray
    measured_step_us: np.ndarray
    model_step_us: np.ndarray
    boundary_P: int  # the first P whose ring crosses a node

    def step(self, values) -> float:
        """The jump of the time per step at the boundary (µs): mean after minus mean before."""
        after = self.P >= self.boundary_P
        before = self.P < self.boundary_P
        return float(np.mean(values[after]) - np.mean(values[before]))

    @property
    def measured_jump_us(self) -> float:
        return self.step(self.measured_step_us)

    @property
    def model_jump_us(self) -> float:
        return self.step(self.model_step_us)

    @property
    def ratio(self) -> float:
        """Measured jump over the model's: 1 is exact."""
        return self.measured_jump_us / self.model_jump_us


def ring_prediction(run: BoundaryRun, links: dict, messages_per_step: float = 2.0) -> RingPrediction:
    """The link-class ring model (2 messages per step, the dearest link in use) with the λ, b
    just fitted, against the measured time per step."""
    from ..models.ring import Placement, ring_time

    placement = Placement(cores_per_socket=SLOTS, sockets_per_node=1, map_by="core")
    ring = run.ring[run.ring["np"] >= 2].sort_values("np")  # P = 1 sends to itself: no link
    P = ring["np"].to_numpy(int)
    n = float(ring["size_bytes"].iloc[0])
    model = ring_time(P, n, {c: f.model for c, f in links.items()}, placement, messages_per_step=messages_per_step) / P
    boundary = next(p for p, cls in placement.boundaries(int(P.max())) if cls == "node")
    return RingPrediction(P, ring["t_us"].to_numpy(float) / P, model, int(boundary))


def closeness(ratio: float) -> str:
    """A verdict on measured/model, in words."""
    off = abs(ratio - 1)
    if off <= 0.25:
        return f"within {off:.0%} of the model"
    return f"{ratio:.1f} times the model's" if ratio > 1 else f"{1 / ratio:.1f} times smaller than the model's"


# -- figures -------------------------------------------------------------------------------------


def plot_pingpong(run: BoundaryRun, links: dict, orfeo_curves=None, machine_name="orfeo-thin"):
    """Intra- and inter-node ping-pong on emulated nodes with their fits, beside ORFEO's real
    inter-node curves (map by node: UCX over InfiniBand, TCP over Ethernet)."""
    import matplotlib.pyplot as plt

    from ..plotting import CLASS_COLORS, label_axes, measured, model_line, size_axis, size_grid

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), layout="constrained")
    for link, g in run.pingpong.groupby("mapping"):
        g = g.sort_values("size_bytes")
        n = g["size_bytes"].to_numpy(float)
        color = CLASS_COLORS.get(link, "C0")
        label = f"emulated nodes, {LINKS.get(link, link)}"
        measured(axes[0], n, g["t_us"], g["t_min_us"], g["t_max_us"], label=label, color=color)
        pos = n > 0
        axes[1].plot(n[pos], n[pos] / g["t_us"].to_numpy(float)[pos], "o", ms=4, color=color, label=label)
        grid = size_grid(n)
        f = links[link]
        model_line(
            axes[0],
            grid,
            f.time_us(grid),
            color=color,
            ls=":",
            label=f"{link} link: Hockney fit, λ = {f.lambda_us:.2g} µs, b = {f.bandwidth_MBps:,.0f} MB/s (model)",
        )
    if orfeo_curves is not None and len(orfeo_curves):
        from ..orfeo import per_configuration

        d = per_configuration(orfeo_curves)
        d = d[(d["machine"] == machine_name) & (d["mapping"] == "node") & d["mpi_library"].str.startswith("Open MPI")]
        for i, transport in enumerate(t for t in ORFEO_TRANSPORTS if t in set(d["transport"])):
            g = d[d["transport"] == transport]
            g = g.groupby("size_bytes", as_index=False)["t_us"].median().sort_values("size_bytes")
            style = dict(lw=1.4, color=f"C{4 + i}", ls="--")
            name = f"ORFEO {machine_name}, across nodes, Open MPI {ORFEO_TRANSPORTS[transport]}"
            axes[0].plot(g["size_bytes"], g["t_us"], label=name, **style)
            pos = g["size_bytes"] > 0
            axes[1].plot(g["size_bytes"][pos], g["size_bytes"][pos] / g["t_us"][pos], **style)
    label_axes(axes[0], "Ping-pong time", "message size", "time t (µs, half round trip)")
    label_axes(axes[1], "Ping-pong bandwidth", "message size", "bandwidth n / t (MB/s)")
    for ax in axes:
        size_axis(ax)
        ax.set_yscale("log")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=8)
    return fig


def plot_ring(run: BoundaryRun, prediction: RingPrediction):
    from ..plotting import label_axes, measured, model_line, new_axes

    fig, ax = new_axes(figsize=(6.4, 4.0))
    ring = run.ring[run.ring["np"].isin(prediction.P)].sort_values("np")
    P = ring["np"].to_numpy(float)
    measured(
        ax,
        P,
        ring["t_us"] / P,
        ring["t_min_us"] / P,
        ring["t_max_us"] / P,
        label="measured, --map-by core, 2 slots per node",
    )
    model_line(
        ax,
        prediction.P,
        prediction.model_step_us,
        drawstyle="steps-mid",
        label="2·max(λ_c + n/b_c), λ and b from the ping-pong fits (model)",
        color="C3",
    )
    ax.axvline(prediction.boundary_P - 0.5, color="0.5", ls="--", lw=1)
    ax.text(prediction.boundary_P - 0.45, ax.get_ylim()[1], " ring crosses\n a node", va="top", fontsize=8)
    ax.set_yscale("log")
    ax.set_xticks(P)
    label_axes(ax, "Ring on 2 emulated nodes: time per step", "processes P", "time per step (µs)")
    ax.legend(loc="upper left", fontsize=8, framealpha=0.9)
    ax.set_ylim(top=ax.get_ylim()[1] * 30)  # room for the legend above the points
    return fig


if __name__ == "__main__":
    if "--write-reference" in sys.argv:
        run = measure()
        import os

        policy = os.sched_getscheduler(0)
        if policy == os.SCHED_FIFO:  # e.g. `chrt -f 1 ...` on a machine shared with other work
            run.meta["scheduling"] = (
                f"SCHED_FIFO priority {os.sched_getparam(0).sched_priority}: "
                f"the run went ahead of the machine's other work"
            )
        command = " ".join(
            ["chrt -f 1"] * (policy == os.SCHED_FIFO) + ["python -m commbook.nodes.boundary --write-reference"]
        )
        for path in write_reference(run, command):
            print("wrote", path)
