"""Collective operations: the library's algorithm chosen explicitly, kernel traces, measurements.

The kernels ``bcast``, ``gather`` and ``allreduce`` (``kernels_c/``) time hand-written
algorithms and the library's own collective side by side; ``allgather``, ``alltoall`` and
``reduce_scatter`` time the library's alone (their algorithms are modelled, not hand-written). An algorithm NAME is one of
:data:`HAND_ALGORITHMS` or ``library[:ID]``:

* ``library``: the collective as the MPI library chooses it;
* ``library:ID`` (Open MPI): ``coll_tuned``'s algorithm number ID (the numbers of the ORFEO job
  scripts, ``--mca coll_tuned_bcast_algorithm 6``) or its name (``library:binomial``), with
  optional ``:key=value`` parameters of that algorithm (``library:2:chain_fanout=1``);
* ``library:NAME`` (MPICH): ``MPIR_CVAR_<OP>_INTRA_ALGORITHM=NAME``.

The selection is made through environment variables read when MPI starts (:func:`library_env`),
so one run can hold one forced library algorithm. The kernel refuses a label the environment
does not back, prints the value the library itself reports for the variable (MPI_T control
variable, ``# library_cvar:``) and, on Open MPI with ``--monitor 1``, the messages the library
counted per pair of ranks for one call (``# messages:``). :func:`check_selection` compares what
was asked with what the library reports, so nothing here names an algorithm that did not run.

Traces (``--trace 1``) list each hand-written algorithm's sends step by step
(``# trace: ALG step S: SRC -> DST bytes=B phase=P``); :func:`communication_diagram` prints
them the way Rappl's butterfly homework does: "Communication from i to j".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import algorithms, kernels, mpi_env
from .algorithms import OMPI_COLL_TUNED

OPS = ("bcast", "gather", "allreduce", "allgather", "alltoall", "reduce_scatter")

# The hand-written algorithms of each kernel, {label: description} in the C table's order
# (none for the kernels that time only the library).
HAND_ALGORITHMS = {op: algorithms.kernel_algorithms(op) if op in algorithms.KERNEL_TABLES else {} for op in OPS}
# Kernel algorithm -> name in commbook.models.collective_schedules.
MODEL_NAMES = {(op, label): model for op in OPS for label, model in algorithms.kernel_model_names(op).items()}

# What the libraries call their algorithms lives in commbook.algorithms; these are the
# operations the kernels time.
OMPI_ALGORITHMS = {op: OMPI_COLL_TUNED[op] for op in OPS}


class SelectionError(ValueError):
    """An algorithm name that cannot be selected, or a selection the library did not apply."""


def check_op(op: str) -> str:
    if op not in OPS:
        raise SelectionError(f"unknown collective '{op}'; valid: {', '.join(OPS)}")
    return op


# ---------------------------------------------------------------------------------------
# Choosing the library's algorithm


@dataclass(frozen=True)
class LibraryChoice:
    op: str
    label: str  # as the kernel prints it: library, library:6, library:2:chain_fanout=1
    family: mpi_env.MPIFamily  # the MPI family it is forced on
    algorithm: str  # the library's own name for it ("binomial"), "" for the default
    env: dict  # what to put in the environment of mpiexec


def library_env(op: str, label: str, family: mpi_env.MPIFamily | str | None = None) -> LibraryChoice:
    """The environment that makes the MPI library (`family`, default this environment's) run
    `label` ("library", "library:6", "library:binomial", "library:2:chain_fanout=1") for `op`;
    names become numbers on Open MPI.

    Raises SelectionError naming what is wrong and the valid choices."""
    check_op(op)
    family = mpi_env.family(family)
    if label == "library":
        return LibraryChoice(op, label, family, "", {})
    if not label.startswith("library:") or label == "library:":
        raise SelectionError(f"'{label}' is not library or library:ID")
    ident, *extras = label.split(":")[1:]
    try:
        canonical, name, env = family.force_algorithm(op, ident, extras, algorithms.library_table(family, op))
    except ValueError as e:
        raise SelectionError(str(e)) from None
    return LibraryChoice(op, f"library:{canonical}", family, name, env)


def parse_algorithms(op: str, text: str, family: mpi_env.MPIFamily | str | None = None):
    """'chain,library:binomial' -> (['chain', 'library:6'], LibraryChoice or None)."""
    check_op(op)
    names = [a.strip() for a in str(text).split(",") if a.strip()]
    if not names:
        raise SelectionError("no algorithm given")
    out, choice = [], None
    for name in names:
        if name in HAND_ALGORITHMS[op]:
            out.append(name)
        elif name == "library" or name.startswith("library:"):
            c = library_env(op, name, family)
            if choice is not None and (c.label != choice.label):
                raise SelectionError(
                    f"one run can use one library algorithm, not {choice.label} "
                    f"and {c.label} (the environment chooses it when MPI starts)"
                )
            choice = c
            out.append(c.label)
        else:
            raise SelectionError(
                f"unknown {op} algorithm '{name}'; valid: {', '.join(HAND_ALGORITHMS[op])}, library, library:ID"
            )
    return out, choice


def prepare_for(op: str):
    """The KernelSpec.prepare hook of `op`: rewrites --algorithm and returns the environment."""

    def prepare(options: dict) -> tuple[dict, dict]:
        options = dict(options)
        names, choice = parse_algorithms(op, options.get("algorithm") or "library")
        options["algorithm"] = ",".join(names)
        env = dict(choice.env) if choice else {}
        if str(options.get("monitor", 0)) == "1":
            env.update(mpi_env.detect().family.monitoring)
        return options, env

    return prepare


# ---------------------------------------------------------------------------------------
# Reading what the kernel printed

_TRACE = re.compile(r"^# trace: (\S+) step (\d+): (\d+) -> (\d+) bytes=(\d+) phase=(\S+)\s*$")
_MESSAGES = re.compile(r"^# messages: (\S+) (\d+) -> (\d+) count=(\d+) bytes=(\d+)\s*$")
_UNAVAILABLE = re.compile(r"^# messages: (\S+) unavailable: (.*)$")
_NONE = re.compile(r"^# messages: (\S+) none\s*$")
_CVAR = re.compile(r"^# library_cvar: (\S+) = (\S+)(?: \((.*)\))?\s*$")


def _text(out) -> str:
    return out.text if isinstance(out, kernels.KernelOutput) else str(out)


def parse_trace(out) -> pd.DataFrame:
    """The '# trace:' lines as a table: algorithm, step, src, dst, bytes, phase (sorted)."""
    rows = []
    for line in _text(out).splitlines():
        m = _TRACE.match(line.strip())
        if m:
            a, s, i, j, b, p = m.groups()
            rows.append((a, int(s), int(i), int(j), int(b), p))
    df = pd.DataFrame(rows, columns=["algorithm", "step", "src", "dst", "bytes", "phase"])
    return df.sort_values(["algorithm", "step", "src", "dst"], kind="stable").reset_index(drop=True)


def parse_messages(out) -> pd.DataFrame:
    """The '# messages:' lines (messages the library counted for one call): algorithm, src,
    dst, count, bytes. Raises SelectionError if the library could not count them."""
    rows, missing = [], []
    for line in _text(out).splitlines():
        s = line.strip()
        m = _MESSAGES.match(s)
        if m:
            a, i, j, c, b = m.groups()
            rows.append((a, int(i), int(j), int(c), int(b)))
        elif _NONE.match(s):
            rows.append((_NONE.match(s).group(1), -1, -1, 0, 0))  # ran, sent nothing
        elif _UNAVAILABLE.match(s):
            missing.append(_UNAVAILABLE.match(s).groups())
    if missing and not rows:
        raise SelectionError(f"the library did not count messages: {missing[0][1]}")
    df = pd.DataFrame(rows, columns=["algorithm", "src", "dst", "count", "bytes"])
    return df  # an algorithm that sent nothing has one row with src = dst = -1, count 0


def message_matrix(messages: pd.DataFrame, algorithm: str, P: int) -> np.ndarray:
    """M[i, j] = messages rank i sent to rank j in one call of `algorithm`."""
    M = np.zeros((P, P), dtype=np.int64)
    for r in messages[(messages.algorithm == algorithm) & (messages["count"] > 0)].itertuples():
        M[r.src, r.dst] += r.count
    return M


def library_cvars(out) -> dict:
    """{'coll_tuned_bcast_algorithm': ('6', 'binomial'), ...} as the library reported them."""
    found = {}
    for line in _text(out).splitlines():
        m = _CVAR.match(line.strip())
        if m:
            found[m.group(1)] = (m.group(2), m.group(3) or "")
    return found


def check_selection(out, op: str, choice: LibraryChoice | None) -> str:
    """Confirm that the library reports the forced algorithm; return a one-line statement.

    Raises SelectionError when the library's own control variable disagrees with what was
    asked (e.g. MPICH without MPIR_CVAR_DEVICE_COLLECTIVES=none, or a misspelt variable)."""
    if choice is None or choice.label == "library":
        return "library: the MPI library's own choice (nothing forced)"
    cvars = library_cvars(out)
    var = choice.family.algorithm_variable(op)
    if var not in cvars:
        raise SelectionError(
            f"{choice.label}: the kernel did not report {var}; cannot confirm that the library applied it"
        )
    ident = choice.label.split(":")[1]
    ok, said = choice.family.confirm_algorithm(
        op, ident, choice.algorithm, cvars, algorithms.library_table(choice.family, op)
    )
    if not ok:
        raise SelectionError(
            f"{choice.label} was asked for, but the library reports {var} = {said}: the selection did not take effect"
        )
    return f"{choice.label}: the library reports {var} = {said}"


def communication_diagram(trace: pd.DataFrame, algorithm: str) -> str:
    """The homework's listing: per step, 'Communication from i to j' for every message."""
    t = trace[trace.algorithm == algorithm]
    if t.empty:
        raise ValueError(
            f"no trace for '{algorithm}' (run with trace=True; library algorithms "
            f"have none, see the messages counted with monitor=True)"
        )
    lines = []
    for step, group in t.groupby("step", sort=True):
        phases = ", ".join(sorted(set(group.phase)))
        lines.append(f"step {step} ({phases}):")
        lines += [f"  Communication from {r.src} to {r.dst}" for r in group.itertuples()]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Measuring


# ---------------------------------------------------------------------------------------
# The butterfly exercise


# ---------------------------------------------------------------------------------------
# Models next to measurements


# ---------------------------------------------------------------------------------------
# Models of what Open MPI runs, on a cluster whose links have classes (core, socket, node)


def run_summary(op: str, out) -> str:
    """What `commbook measure bcast|gather|allreduce|...` prints after a run: the library's algorithm
    as read back, each hand-written algorithm's diagram, the messages the library counted."""
    lines = []
    _, choice = parse_algorithms(op, out.meta.get("algorithm", "library"))
    lines.append(check_selection(out, op, choice))
    trace = parse_trace(out)
    for alg in dict.fromkeys(trace.algorithm):
        lines.append(f"communication diagram of {alg} (P = {out.meta.get('np')}):")
        lines.append(communication_diagram(trace, alg))
    if "messages" in out.meta:
        msgs = parse_messages(out)
        for alg, g in msgs.groupby("algorithm", sort=False):
            pairs = (
                ", ".join(
                    f"{r.src}->{r.dst}" + (f" x{r.count}" if r.count > 1 else "") for r in g.itertuples() if r.count > 0
                )
                or "none"
            )
            lines.append(f"messages the library counted in one {alg} call: {pairs}")
    return "\n".join(lines)
