"""A real Slurm on the emulated nodes: munged and slurmctld on the login node, one slurmd per node.

Every node has its own network stack, so all of them use the same ports without clashing with
another Slurm on the machine (the test suite's single-node one listens on loopback). Per-node
``SlurmdSpoolDir``, pid, log and ``TmpFS`` (``%n``): Slurm's pmix plugin makes its application
directory under TmpFS on every node, and a shared one collides ("File exists"). No cgroups:
proctrack/linuxproc and task/none (the emulated nodes share the machine's cores anyway).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import psutil

from . import netns
from .state import NodesError, Record

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sinfo", "squeue", "sbatch", "srun", "salloc", "scancel")
CPUS_PER_NODE = 2
PARTITION = "nodes"


def exe(name: str) -> str | None:
    return shutil.which(name) or (f"/usr/sbin/{name}" if os.path.exists(f"/usr/sbin/{name}") else None)


def missing() -> list[str]:
    return [p for p in DAEMONS + CLIENTS if exe(p) is None]


def folder(record: Record) -> Path:
    return Path(record.run_dir) / "slurm"


def conf_path(record: Record) -> Path:
    return folder(record) / "slurm.conf"


def config_text(record: Record) -> str:
    n = len(record.nodes)
    return conf_text(
        folder(record),
        cluster="emulated",
        controller=f"{record.login}({netns.LOGIN_ADDRESS})",
        ports=(6817, 6818),
        nodes=f"node[1-{n}]",
        addresses=f"{netns.SUBNET}.[1-{n}]",
        cpus=CPUS_PER_NODE,
        partition=PARTITION,
    )


def conf_text(
    d: Path, *, cluster: str, controller: str, ports: tuple, nodes: str, addresses: str, cpus: int, partition: str
) -> str:
    """slurm.conf of daemons whose files live in ``d`` (the emulated nodes' Slurm and the tests')."""
    return f"""\
ClusterName={cluster}
SlurmctldHost={controller}
SlurmctldPort={ports[0]}
SlurmdPort={ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge.socket
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool/%n
TmpFS={d}/tmp/%n
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.%n.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
InactiveLimit=0
KillWait=2
MinJobAge=300
NodeName={nodes} NodeAddr={addresses} CPUs={cpus} RealMemory=1024 State=UNKNOWN
PartitionName={partition} Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
"""


def prepare(d: Path, nodes: list[str]) -> Path:
    """The daemons' folders in ``d`` (state, a spool and a TmpFS per node) and a new munge key."""
    for sub in ["state"] + [f"spool/{x}" for x in nodes] + [f"tmp/{x}" for x in nodes]:
        (d / sub).mkdir(parents=True, mode=0o755)
    key = d / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    return key


def munged_command(d: Path, key: Path) -> list[str]:
    return [
        exe("munged"),
        "-F",
        "--force",
        "--num-threads=1",
        f"--key-file={key}",
        f"--socket={d}/munge.socket",
        f"--pid-file={d}/munged.pid",
        f"--seed-file={d}/munged.seed",
        f"--log-file={d}/munged.log",
    ]


def environment(record: Record) -> dict:
    return {"SLURM_CONF": str(conf_path(record))}


def _spawn(record: Record, node: str, name: str, args: list[str], env: dict) -> None:
    log = open(folder(record) / f"{name}.out", "w")
    try:
        proc = subprocess.Popen(
            netns.enter_command(record, node, wd=str(folder(record))) + args,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    finally:
        log.close()
    # nsenter execs the daemon: this pid is the daemon itself
    record.daemons[name] = [proc.pid, psutil.Process(proc.pid).create_time()]


def sinfo_state(record: Record, env: dict) -> str:
    proc = subprocess.run(
        netns.enter_command(record, record.login) + [exe("sinfo"), "-h", "-o", "%T %D"],
        env=env,
        capture_output=True,
        text=True,
        timeout=10,
    )
    return proc.stdout.strip()


def start(record: Record, save, env: dict, timeout: float = 30) -> None:
    """Write slurm.conf and a munge key, start the daemons, wait until every node is idle."""
    if missing():
        raise NodesError(
            f"--slurm needs Slurm: {', '.join(missing())} missing (apt-get install "
            f"slurmctld slurmd slurm-client munge libpmix-dev)"
        )
    d = folder(record)
    d.mkdir(mode=0o755)
    record.dirs.append(str(d))
    save(record)
    key = prepare(d, record.nodes)
    conf_path(record).write_text(config_text(record))
    env = {**env, **environment(record)}
    _spawn(record, record.login, "munged", munged_command(d, key), env)
    save(record)
    _wait(record, lambda: (d / "munge.socket").exists(), 10, "munged's socket")
    _spawn(record, record.login, "slurmctld", [exe("slurmctld"), "-D", "-i", "-f", str(conf_path(record))], env)
    for node in record.nodes:
        _spawn(record, node, f"slurmd@{node}", [exe("slurmd"), "-D", "-f", str(conf_path(record)), "-N", node], env)
    save(record)
    want = f"idle {len(record.nodes)}"
    _wait(record, lambda: sinfo_state(record, env) == want, timeout, "every node to be idle")


def dead_daemons(record: Record) -> list[str]:
    """The recorded daemons that no longer run (a reused pid does not count as alive)."""
    dead = []
    for name, (pid, started) in record.daemons.items():
        try:
            p = psutil.Process(pid)
            if abs(p.create_time() - started) > 0.01 or p.status() == psutil.STATUS_ZOMBIE:
                dead.append(name)
        except psutil.Error:
            dead.append(name)
    return dead


def log_of(record: Record, daemon: str) -> Path:
    name, _, node = daemon.partition("@")
    return folder(record) / (f"{name}.{node}.log" if node else f"{name}.log")


def _wait(record: Record, ready, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        dead = dead_daemons(record)
        if dead or time.monotonic() > deadline:
            why = (
                f"{dead[0]} exited (see {log_of(record, dead[0])})"
                if dead
                else f"not within {timeout:g} s (see {folder(record)}/slurmctld.log)"
            )
            raise NodesError(f"starting Slurm: waiting for {what}: {why}")
        time.sleep(0.1)
