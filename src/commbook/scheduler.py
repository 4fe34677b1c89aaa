"""The batch scheduler of a cluster login node (Slurm, or none): find it, place ipyparallel
engines through it, submit batch jobs and report how they ended.

* ``status()`` says whether Slurm's commands are here, whether its controller answers, which
  partitions are up with nodes to run on, and which MPI plugins ``srun`` offers
  (``commbook doctor`` prints it).
* ``configure_engines(config, n)`` sets up ipyparallel's ``SlurmEngineSetLauncher`` so that one
  job of ``n`` tasks starts the engines with ``srun --mpi=PLUGIN``, as ranks of one
  ``MPI_COMM_WORLD``. Settings come from the environment:

  ========================== ==========================================================
  ``COMMBOOK_SLURM_QUEUE``   partition (``#SBATCH --partition``)
  ``COMMBOOK_SLURM_ACCOUNT`` account
  ``COMMBOOK_SLURM_TIME``    time limit of the engines' job, e.g. ``00:30:00``
  ``COMMBOOK_SLURM_OPTIONS`` more ``sbatch`` options, e.g. ``--nodes=2 --ntasks-per-node=12``
  ``COMMBOOK_SLURM_MPI``     ``srun --mpi`` plugin (default: ``pmix`` for Open MPI,
                             ``pmi2`` for MPICH; ``srun --mpi=list`` shows what the site has)
  ========================== ==========================================================

* ``submit(script)`` runs ``sbatch --wait`` and returns the job's state and output; a job that
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

from . import mpi_env

#: srun's PMI plugin per MPI family: Open MPI's PMIx, MPICH's PMI-2 (MPICH fails under pmix).
SRUN_MPI_PLUGIN = {"openmpi": "pmix", "mpich": "pmi2"}

ENGINE_BATCH_TEMPLATE = """#!/bin/sh
#SBATCH --export=ALL
#SBATCH --job-name=ipengine-{{cluster_id}}
#SBATCH --ntasks={{n}}
{options}srun --mpi={plugin} {{program_and_args}}
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
    available: str        # "up", "down", "drain", "inact"
    nodes: dict = field(default_factory=dict)   # node state -> count

    @property
    def usable(self) -> bool:
        """Up, with at least one node that can take jobs now or soon."""
        ready = ("idle", "mixed", "allocated", "completing")
        return self.available == "up" and any(s.rstrip("*~#!%$@^-+").startswith(ready)
                                              for s in self.nodes)


@dataclass
class SchedulerStatus:
    name: str                       # "slurm" or "none"
    version: str = ""
    reachable: bool = False         # the controller answered
    partitions: list = field(default_factory=list)
    mpi_plugins: list = field(default_factory=list)
    problem: str = ""               # why engines cannot be placed, if they cannot

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
        st.problem = f"sinfo failed: {(out.stderr or out.stdout).strip()[:300]}"
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
        st.mpi_plugins = re.findall(r"^(?:srun:)?\s+([\w-]+)\s*$", listing.stdout + listing.stderr,
                                    re.M)
    except (OSError, subprocess.TimeoutExpired):
        pass
    queue = os.environ.get("COMMBOOK_SLURM_QUEUE")
    wanted = [p for p in st.partitions if p.name == queue] if queue else st.partitions
    plugin = mpi_plugin()
    if queue and not wanted:
        st.problem = f"partition {queue!r} (COMMBOOK_SLURM_QUEUE) does not exist"
    elif not any(p.usable for p in wanted):
        st.problem = "no partition is up with nodes to run on"
    elif st.mpi_plugins and not any(m.startswith(plugin) for m in st.mpi_plugins):
        st.problem = (f"srun has no --mpi={plugin} plugin (it offers {', '.join(st.mpi_plugins)}); "
                      f"set COMMBOOK_SLURM_MPI")
    return st


# -- engines through Slurm -----------------------------------------------------------------


def mpi_plugin() -> str:
    """The `srun --mpi` plugin for this environment's MPI (COMMBOOK_SLURM_MPI overrides)."""
    chosen = os.environ.get("COMMBOOK_SLURM_MPI")
    if chosen:
        return chosen
    try:
        flavour = mpi_env.detect().flavour
    except RuntimeError:
        flavour = "openmpi"
    return SRUN_MPI_PLUGIN.get(flavour, "pmix")


def engine_batch_template(options: str | None = None, plugin: str | None = None) -> str:
    """The engines' job script: one task per engine, each started by srun as an MPI rank."""
    options = os.environ.get("COMMBOOK_SLURM_OPTIONS", "") if options is None else options
    lines = "".join(f"#SBATCH {o if o.split() == [o] else chr(34) + o + chr(34)}\n"
                    for o in shlex.split(options))
    lines = lines.replace("{", "{{").replace("}", "}}")  # the template goes through str.format
    return ENGINE_BATCH_TEMPLATE.format(options=lines, plugin=plugin or mpi_plugin())


def configure_engines(config, work_dir: str | os.PathLike) -> None:
    """Set up ipyparallel's SlurmEngineSetLauncher in `config` (a traitlets Config).

    The batch file goes to work_dir (ipyparallel would write it into the current directory).
    """
    launcher = config.SlurmEngineSetLauncher
    launcher.batch_template = engine_batch_template()
    launcher.batch_file_name = str(Path(work_dir) / "slurm_engine.sbatch")
    launcher.engine_args = ["--mpi"]  # engines take their id from their MPI rank
    for trait, var in [("queue", "COMMBOOK_SLURM_QUEUE"), ("account", "COMMBOOK_SLURM_ACCOUNT"),
                       ("timelimit", "COMMBOOK_SLURM_TIME")]:
        if os.environ.get(var):
            setattr(launcher, trait, os.environ[var])


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
    state: str          # COMPLETED, FAILED, TIMEOUT, CANCELLED, ...
    exit_code: int
    output_file: Path

    @property
    def output(self) -> str:
        try:
            return self.output_file.read_text(errors="replace")
        except OSError:
            return ""


def _job_state(job_id: str, timeout: float) -> tuple[str, str]:
    """(state, time limit) of a finished job: sacct where accounting runs, else scontrol."""
    if shutil.which("sacct"):
        out = _run(["sacct", "-n", "-X", "-P", "-j", job_id, "-o", "State,Timelimit"], timeout)
        line = out.stdout.strip().splitlines()[:1]
        if out.returncode == 0 and line and "|" in line[0]:
            state, limit = line[0].split("|", 1)
            return state.split()[0], limit
    out = _run(["scontrol", "show", "-o", "job", job_id], timeout)
    fields = dict(re.findall(r"(\w+)=(\S*)", out.stdout))
    return fields.get("JobState", "UNKNOWN"), fields.get("TimeLimit", "?")


def submit(script: str | os.PathLike, sbatch_args: list[str] = (), cwd: str | os.PathLike = ".",
           timeout: float = 3600, env: dict | None = None) -> JobResult:
    """Submit a job script with `sbatch --wait`, wait for it, and report how it ended.

    Raises JobTimeLimit when Slurm killed the job at its time limit, JobFailed for any other
    unsuccessful end (with the tail of its output), SchedulerError when sbatch refuses the job
    or it does not end within `timeout` seconds (it is then cancelled).
    """
    cwd = Path(cwd).resolve()
    output = cwd / "slurm-%j.out"
    args = ["sbatch", "--parsable", "--wait", f"--output={output}", *sbatch_args, str(script)]
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    job_id = ""
    try:
        # --parsable prints "ID[;cluster]" at submission, long before the job ends.
        first = proc.stdout.readline()
        job_id = first.strip().split(";")[0]
        if not job_id.isdigit():
            proc.wait(30)
            raise SchedulerError(f"sbatch refused {script}: {(first + proc.stderr.read()).strip()}")
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        cancel([job_id] if job_id else [])
        raise SchedulerError(f"job {job_id or '?'} ({script}) did not end within {timeout:g} s; "
                             f"it was cancelled") from None
    state, limit = "UNKNOWN", "?"
    for _ in range(10):  # the controller may need a moment to record the end
        state, limit = _job_state(job_id, 30)
        if state not in ("RUNNING", "COMPLETING", "PENDING"):
            break
        time.sleep(0.5)
    result = JobResult(job_id, state, proc.returncode,
                       Path(str(output).replace("%j", job_id)))
    tail = "\n".join(result.output.rstrip().splitlines()[-10:])
    if state == "TIMEOUT" or "DUE TO TIME LIMIT" in result.output:
        result.state = "TIMEOUT"
        raise JobTimeLimit(f"job {job_id} ({Path(script).name}) exceeded its time limit "
                           f"({limit}) and was killed by Slurm. Ask for more time "
                           f"(sbatch --time) or a smaller run. Last output:\n{tail}", result)
    if state != "COMPLETED" or proc.returncode != 0:
        raise JobFailed(f"job {job_id} ({Path(script).name}) ended {state} with exit status "
                        f"{proc.returncode}. Last output:\n{tail}", result)
    return result
