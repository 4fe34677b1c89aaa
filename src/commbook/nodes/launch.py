"""How MPI starts processes on the emulated nodes, the way a cluster's site configuration says it.

* A **launch agent** for Open MPI's launcher (PRTE starts a daemon on every hostfile node
  through ``plm_ssh_agent``, normally ``ssh``): a short script that drops ssh's options and runs
  the command in the named node's namespaces. The option is ``plm_ssh_agent``: PRTE ignores
  ``plm_rsh_agent`` without a word and then tries ssh on port 22.
* A **hostfile** naming every node and its slots (``COMMBOOK_HOSTFILE``: commbook passes it to
  mpiexec outside a batch allocation, as on a cluster without a scheduler).
* **Binding off, yielding when idle**: every emulated node sees the same cores, so Open MPI
  would bind rank 0 of each node to core 0 (a ping-pong across nodes measured 3.8 ms instead of
  15 µs), and ranks of different nodes spinning on the same cores starve each other (a ring of
  3 ranks on 2 nodes took 50 ms per step, 26 µs with yielding). A site with shared nodes sets
  such defaults the same way, through MCA variables in the environment.
* **Binding for runs inside one node** (:func:`one_node_binding`): unbound and yielding, the two
  ranks of a one-node ping-pong get packed onto one core as soon as another process keeps the
  other core busy, and then every message costs a context switch (0.83-0.87 µs instead of
  0.23-0.31 µs for 8 B with Open MPI here). Bound one per core (what a real node's mpiexec does),
  each rank keeps a core of its own. Not the default: across nodes it would bind rank 0 of every
  node to the same core.

:func:`environment` is what `commbook nodes exec` adds to a command's environment: the site
configuration of this cluster, nothing the package special-cases.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from . import slurm
from .state import Record

SLOTS_PER_NODE = slurm.CPUS_PER_NODE


def agent_path(record: Record) -> Path:
    return Path(record.run_dir) / "launch-agent"


def hostfile_path(record: Record) -> Path:
    return Path(record.run_dir) / "hostfile"


def agent_script(record: Record) -> str:
    cases = []
    for node in [record.login] + record.nodes:
        f = record.node_files(node)
        enter = f"nsenter --net={shlex.quote(f['net'])} --uts={shlex.quote(f['uts'])} --ipc={shlex.quote(f['ipc'])}"
        cases.append(f'    {node}) enter="{enter}" ;;\n')
    mnt = record.node_files(record.login)["mnt"]
    return f"""#!/bin/sh
# Launch agent of an emulated cluster (commbook nodes): "launch-agent [ssh options] HOST CMD..."
# runs CMD (a shell command line, as ssh would) on HOST: its network, hostname and IPC namespaces,
# and the cluster's mount namespace (its /etc/hosts) unless already inside it.
while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
host=${{1%%.*}}; shift
case $host in
{"".join(cases)}    *) echo "launch-agent: no node '$host' in this emulated cluster" >&2; exit 255 ;;
esac
mnt=--mount={shlex.quote(mnt)}
[ "$(readlink /proc/self/ns/mnt)" = "mnt:[{os.stat(mnt).st_ino}]" ] && mnt=
exec $enter $mnt -- /bin/sh -c "$*"
"""


def write(record: Record) -> None:
    agent = agent_path(record)
    agent.write_text(agent_script(record))
    agent.chmod(0o755)
    record.files.append(str(agent))
    hostfile = hostfile_path(record)
    hostfile.write_text("".join(f"{node} slots={SLOTS_PER_NODE}\n" for node in record.nodes))
    record.files.append(str(hostfile))


def environment(record: Record) -> dict:
    """The cluster's site configuration, for commands run on its login node."""
    env = {
        "PRTE_MCA_plm_ssh_agent": str(agent_path(record)),
        "OMPI_MCA_plm_rsh_agent": str(agent_path(record)),  # Open MPI 4's name for it
        "PRTE_MCA_hwloc_default_binding_policy": "none",
        "OMPI_MCA_hwloc_base_binding_policy": "none",
        "OMPI_MCA_mpi_yield_when_idle": "1",
        # the nodes talk TCP over veths: libfabric's btl/ofi closes unused in MPI_Init with a
        # sleep(1) in every rank (as on one machine: mpi_env.OpenMPI.loopback)
        "OMPI_MCA_btl": "^ofi",
        "PRTE_MCA_prte_default_hostfile": str(hostfile_path(record)),
        "COMMBOOK_HOSTFILE": str(hostfile_path(record)),
    }
    if record.slurm:
        env.update(slurm.environment(record))
    if os.geteuid() == 0 or record.mode == "userns":  # uid 0 inside the cluster
        env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    return env


def one_node_binding(family=None) -> dict:
    """Variables that bind each rank of a run that stays on one node to its own core
    (``--bind-to core``), for `family` (an mpi_env.MPIFamily or its name; default this
    environment's): Open MPI's PRTE (5 and 4), MPICH's Hydra."""
    from .. import mpi_env

    return mpi_env.family(family).binding("core")


def login_environment(record: Record, extra: dict | None = None) -> dict:
    """The environment of a command on the login node: this process's, the venv's bin first on
    PATH, without what commbook sets for runs on one machine only (loopback, oversubscription:
    a notebook or test session that ran a local cluster keeps them in os.environ), plus the
    cluster's site configuration."""
    from .. import mpi_env

    env = {k: v for k, v in os.environ.items() if k not in mpi_env.single_machine_variables()}
    return {**env, "PATH": mpi_env.bin_path(), **environment(record), **(extra or {})}
