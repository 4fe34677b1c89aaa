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


def rank_hosts(text: str) -> list[str]:
    """A kernel's `# rank_hosts:` line ("node1*2,node2*2") as one host per rank."""
    hosts = []
    for part in (text or "").split(","):
        name, _, count = part.strip().partition("*")
        if name:
            hosts += [name] * (int(count) if count.isdigit() else 1)
    return hosts


def mapping_of(rank_hosts_text: str, np: int) -> str:
    """The placement a run had, in the schema's words: one host, as local_mapping says; more
    than one, "node" when ranks 0 and 1 sit on different hosts (round robin, or one rank per
    node), else "core" (hosts filled one after the other)."""
    hosts = rank_hosts(rank_hosts_text)
    if len(set(hosts)) <= 1:
        return local_mapping(np)
    return "node" if hosts[0] != hosts[1] else "core"


def load_average(periods: int = 1) -> str:
    """The load over the last minute (periods=3: 1/5/15 minutes) when the measurement was taken:
    other work on the cores shows here."""
    try:
        return "/".join(f"{x:.2f}" for x in os.getloadavg()[:periods])
    except OSError:
        return "unknown"


def provenance(command: str) -> list[str]:
    """The command, date and machine lines that head a report or a benchmark's output."""
    import time

    return [
        f"# command: {command}",
        f"# date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}",
        f"# machine: {name()} ({mpi_env.cores()} cores, {cpu_model()}), {mpi_env.detect().version}, "
        f"load average (1/5/15 min) at start {load_average(3)} (other jobs share the cores)",
    ]


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
