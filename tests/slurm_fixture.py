"""A real single-node Slurm for the tests: munged, slurmctld and slurmd on 127.0.0.1.

Everything lives in a temporary directory (configuration, munge key and socket, state, logs) and
uses free ports, so it never touches a system Slurm. The daemons run in the foreground as child
processes of pytest, so they can be waited for; on teardown every job is cancelled, `squeue` is
checked empty, and the daemons get SIGTERM and are waited for (SIGKILL after 10 s). Clients find
this Slurm through SLURM_CONF, set in os.environ while the session fixture is active.

Needs root (slurmd runs jobs as their user) and Debian's packages slurmctld slurmd slurm-client
munge (and libpmix-dev for Open MPI's `srun --mpi=pmix`). Without them the tests skip and say
why; with COMMBOOK_REQUIRE_SLURM=1 (set by .ci/run) they fail instead.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from commbook.nodes.slurm import conf_text, exe, munged_command, prepare

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sinfo", "squeue", "sbatch", "srun", "scancel", "scontrol")
PARTITION = "debug"
CPUS = 2


def _missing_reason() -> str | None:
    missing = [p for p in DAEMONS + CLIENTS if exe(p) is None]
    if missing:
        return (
            f"Slurm is not installed ({', '.join(missing)} missing): apt-get install "
            f"slurmctld slurmd slurm-client munge libpmix-dev"
        )
    if os.geteuid() != 0:
        return "a test Slurm needs root (slurmd starts jobs as their user)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _exe(name: str) -> str:
    return exe(name) or name


@dataclass
class LocalSlurm:
    """One running test Slurm: its directory, configuration and daemon processes."""

    root: Path
    node: str
    procs: dict = field(default_factory=dict)

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def env(self) -> dict:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def cmd(self, *args, timeout: float = 30, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run(list(args), env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise RuntimeError(
                f"{' '.join(args)} exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()}\n{self.logs()}"
            )
        return proc

    def jobs(self) -> list[str]:
        """`squeue` lines of every job still known as pending, running or completing."""
        out = self.cmd("squeue", "-h", "-o", "%i %T %j")
        return [line for line in out.stdout.splitlines() if line.strip()]

    def node_state(self) -> str:
        return self.cmd("sinfo", "-h", "-o", "%T", check=False, timeout=10).stdout.strip()

    def cancel_all(self, timeout: float = 30) -> None:
        """Cancel every job and wait until squeue is empty."""
        self.cmd("scancel", "--full", "-u", "root", check=False)
        deadline = time.monotonic() + timeout
        while self.jobs():
            if time.monotonic() > deadline:
                raise RuntimeError(f"jobs still queued {timeout:g} s after scancel: {self.jobs()}")
            time.sleep(0.3)

    def logs(self, tail: int = 15) -> str:
        parts = []
        for name in ("slurmctld.log", f"slurmd.{self.node}.log", "munged.log"):
            path = self.root / name
            if path.exists():
                lines = path.read_text(errors="replace").splitlines()[-tail:]
                parts.append(f"--- {name} ---\n" + "\n".join(lines))
        return "\n".join(parts)

    # -- life cycle ------------------------------------------------------------------------

    def write_config(self) -> Path:
        """Folders, munge key and slurm.conf, laid out as the emulated nodes' Slurm lays out its own."""
        key = prepare(self.root, [self.node])
        self.conf.write_text(
            conf_text(
                self.root,
                cluster="commbook-test",
                controller="localhost(127.0.0.1)",
                ports=(_free_port(), _free_port()),
                nodes=self.node,
                addresses="127.0.0.1",
                cpus=CPUS,
                partition=PARTITION,
            )
        )
        return key

    def start(self, timeout: float = 60) -> "LocalSlurm":
        key = self.write_config()
        d = self.root
        commands = {
            "munged": munged_command(d, key),
            "slurmctld": [_exe("slurmctld"), "-D", "-i", "-f", str(self.conf)],
            "slurmd": [_exe("slurmd"), "-D", "-f", str(self.conf), "-N", self.node],
        }
        for name in DAEMONS:
            log = open(d / f"{name}.out", "w")
            self.procs[name] = subprocess.Popen(
                commands[name], env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=d
            )
            log.close()
            if name == "munged":
                self._wait(lambda: (d / "munge.socket").exists(), 10, "munged socket")
        self._wait(lambda: self.node_state() == "idle", timeout, "the node to be idle")
        return self

    def _wait(self, ready, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            dead = [n for n, p in self.procs.items() if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                why = f"{', '.join(dead)} exited" if dead else f"not within {timeout:g} s"
                raise RuntimeError(f"test Slurm: waiting for {what}: {why}\n{self.logs()}")
            time.sleep(0.2)

    def stop(self) -> None:
        """Cancel jobs, then SIGTERM the daemons in reverse order and wait for each."""
        try:
            if self.procs.get("slurmctld") and self.procs["slurmctld"].poll() is None:
                self.cancel_all()
        finally:
            for name in reversed(DAEMONS):
                proc = self.procs.get(name)
                if proc is None or proc.poll() is not None:
                    continue
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)

    def running(self) -> list[str]:
        return [n for n, p in self.procs.items() if p.poll() is None]


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """The session's test Slurm (started once); SLURM_CONF points at it meanwhile."""
    reason = _missing_reason()
    if reason:
        if os.environ.get("COMMBOOK_REQUIRE_SLURM"):
            pytest.fail(f"Slurm is required here (COMMBOOK_REQUIRE_SLURM) but: {reason}")
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("slurm")
    root.chmod(0o755)
    cluster = LocalSlurm(root, socket.gethostname().split(".")[0])
    saved = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(cluster.conf)
    try:
        yield cluster.start()
    finally:
        cluster.stop()
        if saved is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = saved


@pytest.fixture
def slurm(slurm_cluster, monkeypatch):
    """The test Slurm, with every job of the test cancelled afterwards (squeue empty)."""
    # One node, on 127.0.0.1: UCX (MPICH's netmod) need not advertise every network device.
    # With all of them its address can outgrow a PMI-2 value, and MPI_Init fails under
    # `srun --mpi=pmi2` ("failed to unpack address") on a machine with extra interfaces.
    if "UCX_NET_DEVICES" not in os.environ:
        monkeypatch.setenv("UCX_NET_DEVICES", "lo")
    yield slurm_cluster
    slurm_cluster.cancel_all()
