"""What machine a measurement was taken on (for the metadata header of every file)."""
from __future__ import annotations

import os
import platform
import re
from pathlib import Path

from . import config, mpi_env


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def sockets() -> int:
    ids = set()
    for p in Path("/sys/devices/system/cpu").glob("cpu[0-9]*/topology/physical_package_id"):
        try:
            ids.add(p.read_text().strip())
        except OSError:
            pass
    return len(ids) or 1


def transparent_hugepages() -> str:
    try:
        text = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
        m = re.search(r"\[(\w+)\]", text)
        return m.group(1) if m else text.strip()
    except OSError:
        return "unknown"


def name() -> str:
    """$COMMBOOK_MACHINE, or a name made of the host and its core count."""
    return config.get("COMMBOOK_MACHINE") or f"{platform.node() or 'local'}-{mpi_env.cores()}core"


def local_mapping(np: int) -> str:
    """How ranks sit on this machine, in the schema's words."""
    if np <= 1:
        return "self"
    if np > mpi_env.cores():
        return "oversubscribed"  # ranks take turns on the cores: not a placement to model
    return "core" if sockets() == 1 else "unknown"


def load_average() -> str:
    """The 1-minute load when the measurement was taken: other work on the cores shows here."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "unknown"


def describe() -> dict:
    return {
        "machine": name(),
        "cpu": cpu_model(),
        "cores": mpi_env.cores(),
        "sockets": sockets(),
        "os": f"{platform.system()} {platform.release()}",
        "transparent_hugepages": transparent_hugepages(),
        "load_average_1min": load_average(),
    }


def scope_text() -> str:
    """What the measurements of this machine can show: one node, its sockets and cores."""
    n_sockets, n_cores = sockets(), mpi_env.cores()
    where = ("its cores share one socket" if n_sockets == 1
             else f"its cores sit on {n_sockets} sockets")
    return (f"This machine has {n_cores} cores and {where}; the ranks of a local cluster talk "
            "through shared memory, with no network between nodes: what you measure here is "
            "shared-memory MPI.")
