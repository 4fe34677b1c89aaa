"""The record of one emulated cluster: everything it created, written atomically after each step.

Teardown reads this record and removes exactly what it lists (network namespaces by name, the
namespace files it bind-mounted, the files and folders it wrote, the processes it started),
so a cluster whose owner was killed halfway through `up` is removed as completely as a finished
one, and nothing is ever deleted by a pattern.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

STATE_FILE = "cluster.json"


class NodesError(RuntimeError):
    """Something about the emulated cluster is wrong: one line saying what."""


@dataclass
class Record:
    cluster_id: str
    run_dir: str  # the cluster's own folder (created by it, removed last)
    nodes: list = field(default_factory=list)  # node names, in order
    login: str = "login"  # the namespace with the bridge, slurmctld, the user's shell
    mode: str = "root"  # "root" (plain namespaces) or "userns" (rootless)
    rate: str = ""  # tc tbf rate on every node's eth0, "" = uncapped
    slurm: bool = False
    phase: str = "starting"  # starting, up, stopping
    keeper_pid: int = 0
    keeper_started: float = 0.0  # psutil create_time: a reused pid is never signalled
    marker: str = ""  # process_tree marker of every daemon it started
    netns: list = field(default_factory=list)  # names in /run/netns it added
    ns_inodes: list = field(default_factory=list)  # their inodes: processes inside get killed
    ns_files: list = field(default_factory=list)  # UTS/IPC/mount namespace files bind-mounted
    files: list = field(default_factory=list)  # files written (removed before folders)
    dirs: list = field(default_factory=list)  # folders made (removed deepest first)
    empty_dirs: list = field(default_factory=list)  # folders made, removed only if empty
    daemons: dict = field(default_factory=dict)  # name -> [pid, create_time]
    created: float = 0.0
    up_seconds: float = 0.0

    @property
    def path(self) -> Path:
        return Path(self.run_dir) / STATE_FILE

    def node_files(self, node: str) -> dict:
        d = Path(self.run_dir) / "ns"
        return {
            "net": f"/run/netns/{self.netns_name(node)}",
            "uts": str(d / f"{node}.uts"),
            "ipc": str(d / f"{node}.ipc"),
            "mnt": str(d / "cluster.mnt"),
        }

    def netns_name(self, node: str) -> str:
        return f"cb{self.cluster_id}-{node}"


def save(record: Record) -> None:
    """Write the record atomically (temporary file in the same folder, then rename)."""
    path = record.path
    fd, tmp = tempfile.mkstemp(prefix=".cluster.", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(asdict(record), f, indent=1)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(path: str | os.PathLike) -> Record:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
        return Record(**data)
    except FileNotFoundError:
        raise
    except (OSError, ValueError, TypeError) as e:
        raise NodesError(f"{path}: not a readable emulated-cluster record ({e})") from None


def pointer_file(base: Path) -> Path:
    """base/current: the run folder of the cluster that `commbook nodes` manages in base."""
    return base / "current"


def current(base: Path) -> Record | None:
    """The cluster recorded in base, or None when there is none (a stale pointer is dropped)."""
    pointer = pointer_file(base)
    try:
        run_dir = Path(pointer.read_text().strip())
    except FileNotFoundError:
        return None
    try:
        return load(run_dir / STATE_FILE)
    except FileNotFoundError:
        pointer.unlink(missing_ok=True)  # the cluster was removed (its watchdog ran)
        return None


def set_current(base: Path, run_dir: Path | None) -> None:
    pointer = pointer_file(base)
    if run_dir is None:
        pointer.unlink(missing_ok=True)
        return
    fd, tmp = tempfile.mkstemp(prefix=".current.", dir=base)
    with os.fdopen(fd, "w") as f:
        f.write(str(run_dir) + "\n")
    os.replace(tmp, pointer)
