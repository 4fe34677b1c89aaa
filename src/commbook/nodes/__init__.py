"""An emulated cluster on one machine: N nodes, each its own hostname, network and IPC namespace,
joined by veths on a bridge (optionally capped with ``tc tbf``), optionally with a real Slurm.

    from commbook.nodes import EmulatedCluster
    with EmulatedCluster(nodes=3, slurm=True) as nodes:
        nodes.run(["srun", "-N2", "hostname"])          # on the login node, with its environment

The command line is ``commbook nodes up --nodes N [--rate RATE] [--slurm] | status | exec | down``.
Modules: ``netns`` (namespaces, links, caps), ``slurm`` (the daemons), ``launch`` (Open MPI's
launch agent, the hostfile, the site environment), ``state`` (the record of what was made),
``lifecycle`` (the keeper that owns a cluster, its watchdog, up/down/status).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from . import launch, lifecycle, netns
from .lifecycle import stopping_here
from .state import NodesError, Record

__all__ = ["EmulatedCluster", "NodesError", "Record", "available", "stopping_here"]


def available() -> str | None:
    """None when emulated nodes can be made here, else the one line saying what is missing."""
    try:
        lifecycle.mode_available()
    except NodesError as e:
        return str(e)
    return None


class EmulatedCluster:
    """An emulated cluster owned by this process: removed on stop(), on leaving a `with` block,
    and when this process ends in any way (its keeper watches this process's pipe)."""

    def __init__(self, nodes: int = 3, rate: str = "", slurm: bool = False, base: str | os.PathLike | None = None):
        self.nodes, self.rate, self.slurm = int(nodes), rate, slurm
        self._base = Path(base) if base else None
        self.record: Record | None = None
        self._keeper: subprocess.Popen | None = None

    def start(self) -> "EmulatedCluster":
        if self.record is None:
            base = self._base or Path(tempfile.mkdtemp(prefix="commbook-nodes-"))
            self.record, self._keeper = lifecycle.up(self.nodes, self.rate, self.slurm, base, hold=True)
        return self

    def stop(self, timeout: float = 20) -> None:
        keeper, self._keeper = self._keeper, None
        if keeper is None:
            return
        try:
            keeper.stdin.close()  # the keeper's cue: remove everything
            keeper.wait(timeout)
        except (OSError, subprocess.TimeoutExpired):
            lifecycle.stop_keeper(keeper)

    def __enter__(self) -> "EmulatedCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def hostnames(self) -> list[str]:
        return list(self.record.nodes)

    @property
    def up_seconds(self) -> float:
        return self.record.up_seconds

    def env(self, extra: dict | None = None) -> dict:
        """The environment of a command on the login node (launch.login_environment)."""
        return launch.login_environment(self.record, extra)

    def command(self, argv: list[str], node: str | None = None, wd: str | None = None) -> list[str]:
        return netns.enter_command(self.record, node or self.record.login, wd=wd) + list(argv)

    def run(
        self,
        argv: list[str],
        node: str | None = None,
        timeout: float = 120,
        env: dict | None = None,
        cwd: str | None = None,
        check: bool = False,
    ) -> subprocess.CompletedProcess:
        """Run a command on a node (the login node by default) and wait for it."""
        return subprocess.run(
            self.command(argv, node, wd=cwd),
            env=self.env(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )
