"""The batch scheduler of a cluster login node (Slurm, or none): find it, place ipyparallel
engines through it, submit batch jobs and report how they ended.

* ``status()`` says whether Slurm's commands are here, whether its controller answers, which
  partitions are up with nodes to run on, and which MPI plugins ``srun`` offers
  (``commbook doctor`` prints it).
* ``configure_engines(config, n)`` sets up ipyparallel's ``SlurmEngineSetLauncher`` so that one
  job of ``n`` tasks starts the engines with ``srun --mpi=PLUGIN`` (or mpiexec), as ranks of one
  ``MPI_COMM_WORLD``. Settings come from the environment:

  ========================== ==========================================================
  ``COMMBOOK_SLURM_QUEUE``   partition (``#SBATCH --partition``)
  ``COMMBOOK_SLURM_ACCOUNT`` account
  ``COMMBOOK_SLURM_TIME``    time limit of the engines' job, e.g. ``00:30:00``
  ``COMMBOOK_SLURM_OPTIONS`` more ``sbatch`` options, e.g. ``--nodes=2 --ntasks-per-node=12``
  ``COMMBOOK_SLURM_MPI``     ``srun --mpi`` plugin (default ``pmix`` for Open MPI;
                             ``srun --mpi=list`` shows what the site has), or ``mpiexec``
                             (the default for MPICH: its mpiexec inside the allocation)
  ========================== ==========================================================

* ``submit(script)`` runs ``sbatch``, waits for the job to end and returns the job's state and output; a job that
  Slurm killed at its time limit raises ``JobTimeLimit`` saying so.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import config, mpi_env

# commbook.mpi_env's settings for oversubscribed mpiexec runs are not for Slurm's placement,
# and MPICH 5 started by srun --mpi=pmi2 fails in MPI_Init with its throttle ("Message truncated").
NOT_FOR_SLURM = mpi_env.oversubscribed_variables()

ENGINE_BATCH_TEMPLATE = """#!/bin/sh
#SBATCH --export=ALL
#SBATCH --job-name=ipengine-{{cluster_id}}
#SBATCH --ntasks={{n}}
{options}unset {unset}
{launch} {{program_and_args}}
"""


class SchedulerError(RuntimeError):
    """The scheduler refused a job or did not answer."""


class JobFailed(SchedulerError):
    def __init__(self, message: str, job: "JobResult"):
        super().__init__(message)
        self.job = job


class JobTimeLimit(JobFailed):
    """Slurm killed the job when it reached its time limit."""


# -- what is here --------------------------------------------------------------------------


@dataclass
class Partition:
    name: str
    available: str  # "up", "down", "drain", "inact"
    nodes: dict = field(default_factory=dict)  # node state -> count

    @property
    def usable(self) -> bool:
        """Up, with at least one node that can take jobs now or soon."""
        ready = ("idle", "mixed", "allocated", "completing")
        return self.available == "up" and any(s.rstrip("*~#!%$@^-+").startswith(ready) for s in self.nodes)


@dataclass
class SchedulerStatus:
    name: str  # "slurm" or "none"
    version: str = ""
    reachable: bool = False  # the controller answered
    partitions: list = field(default_factory=list)
    mpi_plugins: list = field(default_factory=list)
    problem: str = ""  # why engines cannot be placed, if they cannot

    @property
    def can_place_engines(self) -> bool:
        return self.name == "slurm" and not self.problem


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def status(timeout: float = 20) -> SchedulerStatus:
    """Which scheduler is here and whether engines can be placed through it."""
    if shutil.which("sinfo") is None or shutil.which("sbatch") is None:
        return SchedulerStatus("none", problem="no Slurm commands (sinfo, sbatch) on PATH")
    st = SchedulerStatus("slurm")
    try:
        st.version = _run(["sinfo", "--version"], timeout).stdout.strip()
        out = _run(["sinfo", "-h", "-o", "%R|%a|%T|%D"], timeout)
    except subprocess.TimeoutExpired:
        st.problem = f"sinfo did not answer within {timeout:g} s"
        return st
    if out.returncode != 0:
        said = (out.stderr or out.stdout).strip().splitlines() or ["no message"]
        st.problem = f"sinfo failed: {said[-1][:300]}"  # the last line says why (fatal: ...)
        return st
    st.reachable = True
    parts: dict[str, Partition] = {}
    for line in out.stdout.splitlines():
        try:
            name, avail, state, count = line.strip().split("|")
        except ValueError:
            continue
        p = parts.setdefault(name.rstrip("*"), Partition(name.rstrip("*"), avail))
        p.nodes[state] = p.nodes.get(state, 0) + int(count)
    st.partitions = list(parts.values())
    try:
        listing = _run(["srun", "--mpi=list"], timeout)
        # "MPI plugin types are..." then one indented name per line (srun: prefix in old versions)
        st.mpi_plugins = re.findall(r"^(?:srun:)?\s+([\w-]+)\s*$", listing.stdout + listing.stderr, re.M)
    except (OSError, subprocess.TimeoutExpired):
        pass
    queue = config.get("COMMBOOK_SLURM_QUEUE")
    wanted = [p for p in st.partitions if p.name == queue] if queue else st.partitions
    plugin = mpi_plugin()
    if queue and not wanted:
        st.problem = f"partition {queue!r} (COMMBOOK_SLURM_QUEUE) does not exist"
    elif not any(p.usable for p in wanted):
        st.problem = "no partition is up with nodes to run on"
    elif plugin != "mpiexec" and st.mpi_plugins and not any(m.startswith(plugin) for m in st.mpi_plugins):
        st.problem = (
            f"srun has no --mpi={plugin} plugin (it offers {', '.join(st.mpi_plugins)}); set COMMBOOK_SLURM_MPI"
        )
    return st


# -- engines through Slurm -----------------------------------------------------------------


def mpi_plugin() -> str:
    """The `srun --mpi` plugin for this environment's MPI (COMMBOOK_SLURM_MPI overrides)."""
    chosen = config.get("COMMBOOK_SLURM_MPI")
    if chosen:
        return chosen
    try:
        return mpi_env.detect().family.srun_mpi  # how each family's ranks start under Slurm
    except RuntimeError:
        return mpi_env.MPIFamily.srun_mpi


def sbatch_options(environ=None) -> list[str]:
    """sbatch options of the engines' job, from the COMMBOOK_SLURM_* variables."""
    value = config.get if environ is None else (lambda name: environ.get(name, ""))
    opts = [
        f"--{flag}={value(var)}"
        for flag, var in [
            ("partition", "COMMBOOK_SLURM_QUEUE"),
            ("account", "COMMBOOK_SLURM_ACCOUNT"),
            ("time", "COMMBOOK_SLURM_TIME"),
        ]
        if value(var)
    ]
    return opts + shlex.split(value("COMMBOOK_SLURM_OPTIONS"))


def launch_line(plugin: str | None = None) -> str:
    """How the engines' job starts its ranks: `srun --mpi=PLUGIN` or `mpiexec -n N`."""
    plugin = plugin or mpi_plugin()
    return "mpiexec -n {n}" if plugin == "mpiexec" else f"srun --mpi={plugin}"


def engine_batch_template(options: list[str], plugin: str | None = None) -> str:
    """The engines' job script: one task per engine, each started by srun as an MPI rank.
    (ipyparallel adds no #SBATCH line to a template it is given: every option is written here.)"""
    lines = "".join(f"#SBATCH {o if o.split() == [o] else chr(34) + o + chr(34)}\n" for o in options)
    lines = lines.replace("{", "{{").replace("}", "}}")  # the template goes through str.format
    launch = launch_line(plugin)
    return ENGINE_BATCH_TEMPLATE.format(options=lines, launch=launch, unset=" ".join(NOT_FOR_SLURM))


def configure_engines(config, work_dir: str | os.PathLike) -> None:
    """Set up ipyparallel's SlurmEngineSetLauncher in `config` (a traitlets Config).

    The batch file and the job's output go to work_dir (the profile directory), not into the
    notebook's directory.
    """
    work_dir = Path(work_dir)
    launcher = config.SlurmEngineSetLauncher
    output = f"--output={work_dir / 'log' / 'ipengine-slurm-%j.out'}"
    launcher.batch_template = engine_batch_template([output] + sbatch_options())
    launcher.batch_file_name = str(work_dir / "slurm_engine.sbatch")
    launcher.engine_args = ["--mpi"]  # engines take their id from their MPI rank


def engine_job_ids(cluster) -> list[str]:
    """Slurm job ids of an ipyparallel Cluster's engine launchers."""
    ids = []
    for launcher in getattr(cluster, "engines", {}).values():
        job = getattr(launcher, "job_id", None)
        if job:
            ids.append(str(job))
    return ids


def cancel(job_ids: list[str], timeout: float = 30) -> None:
    """scancel the jobs (a hung engine job must not keep its nodes)."""
    if job_ids and shutil.which("scancel"):
        try:
            _run(["scancel", *job_ids], timeout)
        except subprocess.TimeoutExpired:
            pass


# -- batch jobs ----------------------------------------------------------------------------


@dataclass
class JobResult:
    job_id: str
    state: str  # COMPLETED, FAILED, TIMEOUT, CANCELLED, ...
    exit_code: int
    output_file: Path

    @property
    def output(self) -> str:
        try:
            return self.output_file.read_text(errors="replace")
        except OSError:
            return ""


ENDED = (
    "COMPLETED",
    "FAILED",
    "TIMEOUT",
    "CANCELLED",
    "NODE_FAIL",
    "PREEMPTED",
    "OUT_OF_MEMORY",
    "BOOT_FAIL",
    "DEADLINE",
)


def job_state(job_id: str, timeout: float = 30) -> dict:
    """JobState, TimeLimit and ExitCode of a job: scontrol while the controller still holds it,
    else sacct where accounting runs; JobState UNKNOWN when neither knows it."""
    out = _run(["scontrol", "show", "-o", "job", job_id], timeout)
    fields = dict(re.findall(r"(\w+)=(\S*)", out.stdout)) if out.returncode == 0 else {}
    if not fields and shutil.which("sacct"):
        acct = (
            _run(["sacct", "-n", "-X", "-P", "-j", job_id, "-o", "State,Timelimit,ExitCode"], timeout)
            .stdout.strip()
            .splitlines()
        )
        if acct and acct[0].count("|") == 2:
            state, limit, code = acct[0].split("|")
            fields = {"JobState": state.split()[0], "TimeLimit": limit, "ExitCode": code}
    return {
        "JobState": fields.get("JobState", "UNKNOWN"),
        "TimeLimit": fields.get("TimeLimit", "?"),
        "ExitCode": fields.get("ExitCode", "?"),
    }


def submit(
    script: str | os.PathLike,
    sbatch_args: list[str] = (),
    cwd: str | os.PathLike = ".",
    timeout: float = 3600,
    poll: float = 1.0,
) -> JobResult:
    """Submit a job script with sbatch, wait for it to end, and report how it ended.

    Raises JobTimeLimit when Slurm killed the job at its time limit, JobFailed for any other
    unsuccessful end (with the tail of its output), SchedulerError when sbatch refuses the job
    or it does not end within `timeout` seconds (it is then cancelled). The output goes to
    cwd/slurm-JOBID.out.
    """
    cwd = Path(cwd).resolve()
    output = cwd / "slurm-%j.out"
    args = ["sbatch", "--parsable", f"--output={output}", *sbatch_args, str(script)]
    sub = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120)
    job_id = sub.stdout.strip().split(";")[0]  # --parsable: "ID[;cluster]"
    if sub.returncode != 0 or not job_id.isdigit():
        raise SchedulerError(f"sbatch refused {script}: {(sub.stderr or sub.stdout).strip()}")
    deadline = time.monotonic() + timeout
    state = job_state(job_id)
    while state["JobState"] not in ENDED:
        if time.monotonic() > deadline:
            cancel([job_id])
            raise SchedulerError(f"job {job_id} ({script}) did not end within {timeout:g} s; it was cancelled")
        time.sleep(poll)
        state = job_state(job_id)
    code = state["ExitCode"].split(":")[0]
    result = JobResult(
        job_id, state["JobState"], int(code) if code.isdigit() else -1, Path(str(output).replace("%j", job_id))
    )
    tail = "\n".join(result.output.rstrip().splitlines()[-10:])
    if result.state == "TIMEOUT" or "DUE TO TIME LIMIT" in result.output:
        result.state = "TIMEOUT"
        raise JobTimeLimit(
            f"job {job_id} ({Path(script).name}) exceeded its time limit "
            f"({state['TimeLimit']}) and was killed by Slurm. Ask for more time "
            f"(sbatch --time) or a smaller run. Last output:\n{tail}",
            result,
        )
    if result.state != "COMPLETED" or result.exit_code != 0:
        raise JobFailed(
            f"job {job_id} ({Path(script).name}) ended {result.state} with exit "
            f"status {result.exit_code}. Last output:\n{tail}",
            result,
        )
    return result
