"""``SimulatedCluster``: what a chapter cell uses, the way it uses ``commbook.cluster.MPICluster``.

    sim = SimulatedCluster("orfeo-thin", nodes=2)
    runs = sim.sweep("ring", [2, 12, 13, 24, 25, 48], {"iterations": 20}, map_by="core")
    table = sim.tidy(runs)          # machine "simulated orfeo-thin 2 nodes", library "SMPI 3.32"

Without ``smpirun`` the same calls return the shipped reference simulation
(``data/reference/simulated/``, written by ``commbook simulate reference``) when it holds the
run asked for; ``SimulatedCluster.live`` is False and :attr:`SimulatedRun.reference` names the
file, so a page can say in bold that its simulated points were not computed here.
"""

from __future__ import annotations

import os

from .. import config, kernels
from . import calibration, platforms, runner
from .runner import SimulatedRun

REFERENCE_NOTE = "**Simulated on the machine that built this book, not here: SimGrid's SMPI is not installed.**"


def reference_dir():
    return config.data_dir() / "reference" / "simulated"


def reference_name(kernel: str, platform: str, nodes: int, map_by: str) -> str:
    return f"{kernel}-{platform}-{nodes}n-{map_by}.csv"


class SimulatedCluster:
    """A simulated cluster: `platform` (orfeo-thin, orfeo-fat, orfeo-epyc, torus, fat-tree,
    dragonfly) of `nodes` nodes, calibrated on ORFEO's `transport` (ucx by default)."""

    def __init__(
        self,
        platform: str = "orfeo-thin",
        nodes: int = 2,
        transport: str | None = None,
        timeout: float = runner.DEFAULT_TIMEOUT,
    ):
        self.platform = platforms.platform(platform, nodes, transport)
        self.timeout = timeout

    @property
    def live(self) -> bool:
        """True when smpirun is here; False: runs come from the shipped reference."""
        return runner.status().ok

    @property
    def cores(self) -> int:
        return self.platform.cores

    def __repr__(self) -> str:
        return f"SimulatedCluster({self.platform.description}, {'SMPI ' + runner.status().version if self.live else 'reference only'})"

    def run(
        self, kernel: str | os.PathLike, options: dict | None = None, np: int | None = None, map_by: str = "core"
    ) -> SimulatedRun:
        """Simulate one run (np defaults to every core of the platform)."""
        np = int(np or self.cores)
        if self.live:
            return runner.run(kernel, self.platform, np, map_by, options, self.timeout)
        return self.from_reference(str(kernel), np, map_by, options)

    def run_cached(
        self, kernel: str | os.PathLike, options: dict | None = None, np: int | None = None, map_by: str = "core"
    ) -> SimulatedRun:
        """A run simulated on this machine before (cached), else the shipped reference: nothing is
        simulated now (for runs too slow for a page's build)."""
        np = int(np or self.cores)
        if self.live:
            run = runner.run(kernel, self.platform, np, map_by, options, self.timeout, cached_only=True)
            if run is not None:
                return run
        return self.from_reference(str(kernel), np, map_by, options)

    def sweep(self, kernel, nps, options: dict | None = None, map_by: str = "core") -> list[SimulatedRun]:
        return [self.run(kernel, options, np, map_by) for np in nps]

    def sweep_if_cached(self, kernel, nps, options: dict | None = None, map_by: str = "core") -> list[SimulatedRun]:
        """The sweep from this machine's simulation cache when every run is there, else the
        shipped reference: for simulations too long to run while a book builds."""
        if self.live and all(runner.is_cached(kernel, self.platform, np, map_by, options) for np in nps):
            return self.sweep(kernel, nps, options, map_by)
        return [self.from_reference(str(kernel), np, map_by, options) for np in nps]

    @staticmethod
    def tidy(runs):
        from ..data import concat

        return concat([r.tidy() for r in runs])

    def from_reference(self, kernel: str, np: int, map_by: str, options: dict | None) -> SimulatedRun:
        """The shipped run for these settings, or KernelError saying SMPI is needed for them."""
        from ..data import read_measurements

        p = self.platform
        name = reference_name(kernel, p.name, p.nodes, map_by)
        path = reference_dir() / name
        why = f"SimGrid's SMPI is not installed ({runner.status().line()})"
        if not path.exists():
            raise kernels.KernelError(f"{why} and no shipped reference simulation {name}")
        m = read_measurements(path)
        wanted = " ".join(kernels.kernel_args(options))
        if m.meta.get("kernel_args", "") != wanted:
            raise kernels.KernelError(
                f"{why}; {name} was simulated with '{m.meta.get('kernel_args', '')}', not '{wanted}'"
            )
        rows = m.table[m.table.np == np]
        if rows.empty:
            raise kernels.KernelError(f"{why}; {name} has no run with np = {np} (it has {sorted(set(m.table.np))})")
        out = kernels.KernelOutput(
            {"benchmark": rows.benchmark.iloc[0], "np": np, "repetitions": int(rows.reps.iloc[0])},
            _table_from_tidy(rows),
            "ok",
        )
        return SimulatedRun(
            out,
            platform=p.name,
            nodes=p.nodes,
            np=np,
            map_by=map_by,
            transport=rows.transport.iloc[0],
            calibration=m.meta.get("calibration", ""),
            library=rows.mpi_library.iloc[0],
            command=m.meta.get("command", ""),
            reference=f"data/reference/simulated/{name}",
        )


def _number(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def _table_from_tidy(rows):
    """A kernel output table rebuilt from tidy rows (the columns to_tidy reads back)."""
    import pandas as pd

    from ..data import params_to_dict

    tags = ("simulated", "platform", "calibration")
    records = []
    for r in rows.itertuples():
        extra = {k: _number(v) for k, v in params_to_dict(r.params).items() if k not in tags}
        records.append(
            {
                "np": r.np,
                "size_bytes": r.size_bytes,
                "algorithm": r.algorithm,
                "t_min_us": r.t_min_us,
                "t_median_us": r.t_us,
                "t_max_us": r.t_max_us,
                **extra,
            }
        )
    return pd.DataFrame(records)


JACOBI_L = 600  # 600^3 points (3.5 GB of doubles) fit this simulation's memory; 1200^3 would not
JACOBI_NPS = (1, 24, 48, 96, 192)  # one process, then 1, 2, 4 and 8 full THIN nodes (map-by core)


def jacobi_strong_scaling(L: int = JACOBI_L, nps=JACOBI_NPS, sweeps: int = 3):
    """(kernel, platform, nodes, map-by, nps, options) of the Jacobi chapter's simulated strong
    scaling: one L^3 grid on up to 8 THIN nodes, the compute charged at the calibrated rate
    (calibration.jacobi_compute_lups), the sweep's own checks on."""
    options = {"L": L, "sweeps": sweeps, "check": 0, "sim-lups": calibration.jacobi_compute_lups()}
    return ("jacobi3d", "orfeo-thin", 8, "core", list(nps), options)


def write_reference(
    kernel: str, platform: str, nodes: int, map_by: str, nps, options: dict | None = None, command: str = ""
):
    """Simulate a sweep and ship it in data/reference/simulated/ with platform, calibration and
    provenance in its header (what pages show where SMPI is absent)."""
    from ..data import write_measurements

    sim = SimulatedCluster(platform, nodes)
    runs = [runner.run(kernel, sim.platform, np, map_by, options, sim.timeout) for np in nps]
    first = runs[0]
    meta = {
        "what": f"simulated {kernel} on {sim.platform.description}, map-by {map_by}: the fallback where SMPI is absent",
        "simulator": first.library,
        "platform": f"{sim.platform.name} with {nodes} nodes, generated by commbook.simulate.platforms "
        + (
            "(SimGrid's cluster topology, every link the calibrated inter-node link)"
            if platform in platforms.INTERCONNECTS
            else "from data/orfeo/hardware_seed.csv"
        ),
        "transport": sim.platform.transport,
        "calibration": first.calibration,
        "map_by": map_by,
        "kernel": kernel,
        "kernel_args": " ".join(kernels.kernel_args(options)),
        "nps": " ".join(str(n) for n in nps),
        "command": command or f"commbook simulate reference {kernel}",
        **(
            {"compute": f"--sim-lups {options['sim-lups']}: {calibration.JACOBI_COMPUTE_SOURCE}"}
            if options and "sim-lups" in options
            else {}
        ),
        "source": "commbook.simulate.cluster.write_reference: each row one smpirun of the book's kernel",
    }
    path = reference_dir() / reference_name(kernel, platform, nodes, map_by)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_measurements(path, SimulatedCluster.tidy(runs), meta)
