"""Running what a panel asks for, without any widget: on the chapter's cluster when it fits, on a
cluster of the panel's own otherwise; one run per swept point, stoppable at once from another
thread; the results kept for the session as tidy rows ("your run 1", "your run 2", ...)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

import pandas as pd

from .. import data, kernels, machine, registry
from ..cluster import MPICluster, RunStopped
from ..panel_specs import PanelSpec, map_by

RUN_TIMEOUT_S = 300.0


def first_line(error: BaseException) -> str:
    """The kernel's own words, one line: the `# result:` line of a failed kernel, else the
    error's first line (never a traceback)."""
    out = getattr(error, "output", None)
    if out is not None and getattr(out, "result", ""):
        return f"{type(error).__name__}: {out.result}"
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else 'no message'}"


class Session:
    """The runs one panel made in this kernel session, and the clusters they ran on."""

    def __init__(
        self,
        spec: PanelSpec,
        cluster: MPICluster | None = None,
        cluster_factory: Callable[..., MPICluster] = MPICluster,
    ):
        self.spec = spec
        self.chapter_cluster = cluster
        self._factory = cluster_factory
        self._own: MPICluster | None = None
        self.runs: list[pd.DataFrame] = []
        self.cancel = threading.Event()
        self.busy = threading.Lock()

    # -- clusters ---------------------------------------------------------------------------

    def cluster_for(self, values: dict) -> MPICluster:
        """The chapter's cluster when it has the processes and placement asked for; else the
        panel's own (stopped and replaced when those change)."""
        n = values.get("processes", 2)
        placement = map_by(values.get("placement", "core"))
        chapter = self.chapter_cluster
        if chapter is not None and chapter.n == n and getattr(chapter, "map_by", None) == placement:
            return chapter
        if self._own is not None and (self._own.n != n or self._own.map_by != placement):
            self._own.stop()
            self._own = None
        if self._own is None:
            self._own = self._factory(n=n, map_by=placement)
        return self._own

    def close(self) -> None:
        if self._own is not None:
            self._own.stop()
            self._own = None

    # -- runs -------------------------------------------------------------------------------

    def label(self) -> str:
        return f"your run {len(self.runs) + 1}"

    def run(
        self,
        values: dict,
        progress: Callable[[int, int, object], None] = lambda *a: None,
        timeout: float = RUN_TIMEOUT_S,
    ) -> pd.DataFrame:
        """Run every point; return (and keep) the tidy rows. Raises RunStopped after stop(),
        a KernelError with the kernel's own message when a run fails."""
        if not self.busy.acquire(blocking=False):
            raise RuntimeError("a run is already going; Stop it first")
        try:
            self.cancel.clear()
            spec, label = self.spec, self.label()
            name = spec.kernel_name(values)
            source = registry.KERNELS[name].source
            points = spec.points(values)
            frames = []
            progress(0, len(points), "")
            for i, point in enumerate(points):
                if self.cancel.is_set():
                    raise RunStopped("stopped before the next point")
                here = spec.point_values(values, point)
                cluster = self.cluster_for(here)
                mapping = here.get("placement", "core")
                if mapping == "core":
                    mapping = machine.local_mapping(cluster.n)
                out = cluster.run(source, spec.options(here, point), timeout=timeout, cancel=self.cancel)
                frames.append(out.to_tidy(machine=machine.name(), mapping=mapping, source=label))
                progress(i + 1, len(points), point)
            table = data.concat(frames)
            self.runs.append(table)
            return table
        finally:
            self.busy.release()

    def stop(self) -> None:
        """End the run now: the worker's wait sees the flag within 0.1 s and kills the cluster's
        whole process tree (commbook.process_tree)."""
        self.cancel.set()

    def table(self) -> pd.DataFrame:
        """Every run of this session, tidy (commbook.data schema)."""
        return data.concat(self.runs) if self.runs else data.empty_table()

    def series(self) -> list[tuple[str, pd.DataFrame]]:
        return [(t["source"].iloc[0], t) for t in self.runs if len(t)]

    def export(self, path) -> Path:
        """The session's runs as the tidy CSV (atomic write, metadata header)."""
        meta = {
            "machine": machine.name(),
            "source": f"run panel of the {self.spec.chapter} chapter",
            "command": "; ".join(sorted({t["source"].iloc[0] for t in self.runs if len(t)})),
        }
        return data.write_measurements(path, self.table(), meta)


def column(table: pd.DataFrame, name: str) -> pd.Series:
    """A figure's column, from the tidy columns or from params (jacobi's mlups, matrix's grid)."""
    if name in table.columns:
        return table[name]
    values = table["params"].map(lambda p: data.params_to_dict(p).get(name, ""))
    numbers = pd.to_numeric(values, errors="coerce")
    return values if numbers.isna().any() and len(values) else numbers


def error_line(error: BaseException) -> str:
    """What the panel shows for a failed run."""
    if isinstance(error, RunStopped):
        return "Stopped: every process of the run was killed; the next Run starts a new cluster."
    if isinstance(error, kernels.KernelError):
        return first_line(error)
    return first_line(error)
