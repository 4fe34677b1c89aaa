"""Collective operations: the library's algorithm chosen explicitly, kernel traces, measurements.

The kernels ``bcast``, ``gather`` and ``allreduce`` (``kernels_c/``) time hand-written
algorithms and the library's own collective side by side. An algorithm NAME is one of
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
them the way the butterfly homework (seeds/004) does: "Communication from i to j".
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import kernels, mpi_env
from .algorithms import (MPICH_ALGORITHMS, OMPI_COLL_TUNED, OMPI_PARAMETERS,
                         mpich_variable, ompi_variable)
from .algorithms import model_name as library_model_name

OPS = ("bcast", "gather", "allreduce")

# The hand-written algorithms of each kernel (same names and order as the C tables).
HAND_ALGORITHMS = {
    "bcast": {
        "linear": "root sends to every rank in turn with MPI_Send (repeated point-to-point)",
        "chain": "each rank receives the whole message from rank-1 and sends it to rank+1",
        "pipeline": "chain in segments of --segment bytes, so all links work at once",
        "binary": "binary tree: rank v receives from (v-1)/2, sends to 2v+1 and 2v+2",
        "binomial": "binomial tree: the ranks holding the data double every step",
        "scatter-allgather": "van de Geijn: binomial scatter of P blocks, then ring allgather",
    },
    "gather": {
        "linear": "every rank sends its block to the root, which receives them in rank order",
        "binomial": "binomial tree: in step s ranks with lowest bit 2^(s-1) send all they hold",
    },
    "allreduce": {
        "butterfly-lh": "recursive doubling, partners differ in bit 1, 2, 4, ... (low to high)",
        "butterfly-hl": "recursive doubling, partners differ in the highest bit first (high to low)",
        "ring": "ring reduce-scatter then ring allgather: 2(P-1) steps of n/P bytes",
        "rabenseifner": "recursive-halving reduce-scatter then recursive-doubling allgather",
    },
}

# Kernel algorithm -> name in commbook.models.collectives.
MODEL_NAMES = {
    ("bcast", "linear"): "linear", ("bcast", "chain"): "chain", ("bcast", "pipeline"): "pipeline",
    ("bcast", "binary"): "binary_tree", ("bcast", "binomial"): "binomial",
    ("gather", "linear"): "linear", ("gather", "binomial"): "binomial",
    ("allreduce", "butterfly-lh"): "recursive_doubling",
    ("allreduce", "butterfly-hl"): "recursive_doubling",
    ("bcast", "scatter-allgather"): "scatter_allgather",
    ("allreduce", "ring"): "ring", ("allreduce", "rabenseifner"): "rabenseifner",
}

# What the libraries call their algorithms lives in commbook.algorithms; these are the
# operations the kernels time.
OMPI_ALGORITHMS = {op: OMPI_COLL_TUNED[op] for op in OPS}


class SelectionError(ValueError):
    """An algorithm name that cannot be selected, or a selection the library did not apply."""


def _check_op(op: str) -> str:
    if op not in OPS:
        raise SelectionError(f"unknown collective '{op}'; valid: {', '.join(OPS)}")
    return op


# ---------------------------------------------------------------------------------------
# Choosing the library's algorithm


@dataclass(frozen=True)
class LibraryChoice:
    op: str
    label: str       # as the kernel prints it: library, library:6, library:2:chain_fanout=1
    flavour: str     # openmpi | mpich
    algorithm: str   # the library's own name for it ("binomial"), "" for the default
    env: dict        # what to put in the environment of mpiexec


def library_env(op: str, label: str, flavour: str | None = None) -> LibraryChoice:
    """The environment that makes the MPI library run `label` ("library", "library:6",
    "library:binomial", "library:2:chain_fanout=1") for `op`; names become numbers on Open MPI.

    Raises SelectionError naming what is wrong and the valid choices."""
    _check_op(op)
    flavour = flavour or mpi_env.detect().flavour
    if label == "library":
        return LibraryChoice(op, label, flavour, "", {})
    if not label.startswith("library:") or label == "library:":
        raise SelectionError(f"'{label}' is not library or library:ID")
    parts = label.split(":")[1:]
    ident, extras = parts[0], parts[1:]
    if flavour == "openmpi":
        table = OMPI_ALGORITHMS[op]
        by_name = {v: k for k, v in table.items()}
        if ident.isdigit() and int(ident) in table:
            number = int(ident)
        elif ident in by_name:
            number = by_name[ident]
        else:
            valid = ", ".join(f"{k} ({v})" for k, v in table.items())
            raise SelectionError(f"Open MPI has no {op} algorithm '{ident}'; valid: {valid}")
        env = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
               ompi_variable(op): str(number),
               # coll/han (Open MPI 5) takes collectives over on multi-node runs and ignores
               # coll/tuned's forced algorithm; on one node it steps aside by itself.
               "OMPI_MCA_coll": "^han"}
        canonical = [f"library:{number}"]
        for kv in extras:
            key, eq, value = kv.partition("=")
            if not eq or key not in OMPI_PARAMETERS[op] or not value.isdigit():
                raise SelectionError(
                    f"'{kv}' in {label}: parameters are key=integer with key one of "
                    f"{', '.join(OMPI_PARAMETERS[op])}")
            env[f"OMPI_MCA_coll_tuned_{op}_algorithm_{key}"] = value
            canonical.append(f"{key}={value}")
        return LibraryChoice(op, ":".join(canonical), flavour, table[number], env)
    if flavour == "mpich":
        if extras:
            raise SelectionError(f"{label}: algorithm parameters are supported for Open MPI only")
        if ident not in MPICH_ALGORITHMS[op]:
            raise SelectionError(f"MPICH has no {op} algorithm '{ident}'; valid: "
                                 f"{', '.join(MPICH_ALGORITHMS[op])} (names, not numbers)")
        env = {mpich_variable(op): ident,
               # without this MPICH ignores the variable above, silently
               "MPIR_CVAR_DEVICE_COLLECTIVES": "none",
               # an algorithm that cannot handle the arguments fails instead of falling back
               "MPIR_CVAR_COLLECTIVE_FALLBACK": "error"}
        return LibraryChoice(op, f"library:{ident}", flavour, ident, env)
    raise SelectionError(f"choosing the library's algorithm needs Open MPI or MPICH, not {flavour}")


def parse_algorithms(op: str, text: str, flavour: str | None = None):
    """'chain,library:binomial' -> (['chain', 'library:6'], LibraryChoice or None)."""
    _check_op(op)
    names = [a.strip() for a in str(text).split(",") if a.strip()]
    if not names:
        raise SelectionError("no algorithm given")
    out, choice = [], None
    for name in names:
        if name in HAND_ALGORITHMS[op]:
            out.append(name)
        elif name == "library" or name.startswith("library:"):
            c = library_env(op, name, flavour)
            if choice is not None and (c.label != choice.label):
                raise SelectionError(f"one run can use one library algorithm, not {choice.label} "
                                     f"and {c.label} (the environment chooses it when MPI starts)")
            choice = c
            out.append(c.label)
        else:
            raise SelectionError(f"unknown {op} algorithm '{name}'; valid: "
                                 f"{', '.join(HAND_ALGORITHMS[op])}, library, library:ID")
    return out, choice


def prepare_for(op: str):
    """The KernelSpec.prepare hook of `op`: rewrites --algorithm and returns the environment."""
    def prepare(options: dict) -> tuple[dict, dict]:
        options = dict(options)
        names, choice = parse_algorithms(op, options.get("algorithm") or "library")
        options["algorithm"] = ",".join(names)
        env = dict(choice.env) if choice else {}
        if str(options.get("monitor", 0)) == "1" and mpi_env.detect().flavour == "openmpi":
            env["OMPI_MCA_pml_monitoring_enable"] = "1"
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
    var = (f"coll_tuned_{op}_algorithm" if choice.flavour == "openmpi"
           else mpich_variable(op))
    if var not in cvars:
        raise SelectionError(f"{choice.label}: the kernel did not report {var}; cannot confirm "
                             f"that the library applied it")
    value, name = cvars[var]
    if choice.flavour == "openmpi":
        ok = value == choice.label.split(":")[1] and name in ("", choice.algorithm)
        said = f"{value} ({name or 'no name'})"
    else:
        # MPICH reports these enum variables as the index of the value in its own list
        # (`mpivars`): auto first, then the order of MPICH_ALGORITHMS.
        names = ("auto",) + MPICH_ALGORITHMS[op]
        got = name or (names[int(value)] if value.isdigit() and int(value) < len(names) else value)
        dc_value, dc_name = cvars.get("MPIR_CVAR_DEVICE_COLLECTIVES", ("", ""))
        dc = dc_name or {"0": "all", "1": "none", "2": "percoll"}.get(dc_value, dc_value)
        ok = got == choice.algorithm and dc == "none"
        said = f"{value} ({got}), MPIR_CVAR_DEVICE_COLLECTIVES = {dc}"
    if not ok:
        raise SelectionError(f"{choice.label} was asked for, but the library reports {var} = "
                             f"{said}: the selection did not take effect")
    return f"{choice.label}: the library reports {var} = {said}"


def communication_diagram(trace: pd.DataFrame, algorithm: str) -> str:
    """The homework's listing: per step, 'Communication from i to j' for every message."""
    t = trace[trace.algorithm == algorithm]
    if t.empty:
        raise ValueError(f"no trace for '{algorithm}' (run with trace=True; library algorithms "
                         f"have none, see the messages counted with monitor=True)")
    lines = []
    for step, group in t.groupby("step", sort=True):
        phases = ", ".join(sorted(set(group.phase)))
        lines.append(f"step {step} ({phases}):")
        lines += [f"  Communication from {r.src} to {r.dst}" for r in group.itertuples()]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Measuring


def measure(op: str, algorithms="library", np: int = 2, sizes="0:1M", cluster=None,
            repetitions: int = 5, iterations: int = 200, trace: bool = False,
            monitor: bool = False, timeout: float = 300.0, **options) -> kernels.KernelOutput:
    """Run the `op` kernel with the given algorithms and return its output.

    Runs on `cluster` (a commbook.cluster.MPICluster with np engines) when one is given and
    nothing needs the environment; a forced library algorithm or the monitor need variables
    set before MPI starts, so those runs go through mpiexec. A forced selection is checked
    against what the library reports (check_selection) before the output is returned.
    """
    _check_op(op)
    if isinstance(algorithms, (list, tuple)):
        algorithms = ",".join(algorithms)
    opts = {"sizes": sizes, "algorithm": algorithms, "repetitions": repetitions,
            "iterations": iterations, "trace": int(bool(trace)), "monitor": int(bool(monitor)),
            **options}
    opts, env = prepare_for(op)(opts)
    _, choice = parse_algorithms(op, opts["algorithm"])
    if cluster is not None and not env and cluster.n == np:
        out = cluster.run(op, opts, timeout=timeout)
    else:
        out = kernels.run_mpiexec(op, np, opts, timeout=timeout, env=env)
    check_selection(out, op, choice)
    return out


def tidy(outputs, **labels) -> pd.DataFrame:
    """Kernel outputs as one tidy table (commbook.data schema)."""
    if isinstance(outputs, kernels.KernelOutput):
        outputs = [outputs]
    return kernels.tidy_all(outputs, **labels)


def ratio_table(table: pd.DataFrame, numerator: str, denominator: str) -> pd.DataFrame:
    """Per (np, size): median time of `numerator` over `denominator`, the ratio of the fastest
    repetitions (least disturbed by other load), and the ratio's worst-case range from the
    spreads (min/max and max/min)."""
    keys = ["np", "size_bytes"]
    a = table[table.algorithm == numerator].set_index(keys)
    b = table[table.algorithm == denominator].set_index(keys)
    both = a.index.intersection(b.index)
    if both.empty:
        raise ValueError(f"no (np, size) measured for both {numerator} and {denominator}")
    a, b = a.loc[both], b.loc[both]
    return pd.DataFrame({
        f"{numerator}_us": a.t_us, f"{denominator}_us": b.t_us,
        "ratio": a.t_us / b.t_us, "ratio_of_minima": a.t_min_us / b.t_min_us,
        "ratio_low": a.t_min_us / b.t_max_us, "ratio_high": a.t_max_us / b.t_min_us,
    }).reset_index()


def bytes_label(n: float) -> str:
    """A crossover size for text: '2.3 KiB', or 'never' for inf."""
    if not math.isfinite(n):
        return "never"
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f:
            return f"{n / f:.3g} {unit}"
    return f"{n:.0f} B"


def measured_crossover(table: pd.DataFrame, small: str, large: str, P: int | None = None) -> float:
    """The smallest measured size from which `large` is faster than `small` at every larger size
    measured, comparing the fastest repetitions (the least disturbed by other jobs on a shared
    machine); inf if it is not faster at the largest size."""
    r = ratio_table(table, large, small)
    if P is not None:
        r = r[r.np == P]
    r = r[r.size_bytes > 0].sort_values("size_bytes")
    faster = (r.ratio_of_minima < 1).to_numpy()
    if len(faster) == 0 or not faster[-1]:
        return float("inf")
    first = len(faster) - int(np.argmin(faster[::-1])) if not faster.all() else 0
    return float(r.size_bytes.iloc[first])


# The lecture's "Timing - effect of data size" (seeds/003): mpirun -np 20 over a hostfile, an
# int buffer of `count` elements, MPI_Bcast against the root's loop of MPI_Send; seconds of the
# slowest rank, three runs each (the lecture's printout).
LECTURE_BCAST = {
    "np": 20,
    "count": [10_000, 100_000, 1_000_000, 10_000_000],
    "bcast_s": [[0.006201, 0.010286, 0.007437], [0.013635, 0.012790, 0.016407],
                [0.096231, 0.100443, 0.095187], [0.652760, 0.679472, 0.656884]],
    "sends_s": [[0.012150, 0.012115, 0.013936], [0.079088, 0.079539, 0.077956],
                [0.577314, 0.566440, 0.567355], [5.504277, 5.505701, 5.521421]],
}
MPICH_BCAST_SHORT = 12288  # MPICH's MPIR_CVAR_BCAST_SHORT_MSG_SIZE: binomial below it


def lecture_bcast_comparison() -> tuple[pd.DataFrame, float, float]:
    """The lecture's broadcast-vs-repeated-sends trend explained by the model.

    lambda and b come from a Hockney fit to the repeated sends alone (P - 1 messages of n bytes
    each); the broadcast is then predicted, not fitted, as the algorithm MPICH picks (binomial
    below MPICH_BCAST_SHORT bytes, else scatter + ring allgather, as P = 20 is not a power of
    two). Returns (table, lambda_us, b_MBps)."""
    from . import fit
    from .models import collectives as mc
    P = LECTURE_BCAST["np"]
    n = np.array(LECTURE_BCAST["count"], float) * 4
    sends = np.median(LECTURE_BCAST["sends_s"], axis=1) * 1e6
    bcast = np.median(LECTURE_BCAST["bcast_s"], axis=1) * 1e6
    h = fit.fit_hockney(n, sends / (P - 1), n_boot=0)
    lam, b = h.lambda_us, h.bandwidth_MBps
    model_bcast = [mc.predict("bcast", "binomial" if x < MPICH_BCAST_SHORT else "scatter_allgather",
                              P, x, lam, b) for x in n]
    model_sends = mc.predict("bcast", "linear", P, n, lam, b)
    table = pd.DataFrame({
        "ints": LECTURE_BCAST["count"], "bytes": n.astype(int),
        "sends measured (ms)": sends / 1e3, "sends model (ms)": np.asarray(model_sends) / 1e3,
        "bcast measured (ms)": bcast / 1e3, "bcast model (ms)": np.asarray(model_bcast) / 1e3,
        "ratio measured": sends / bcast, "ratio model": np.asarray(model_sends) / model_bcast})
    return table, lam, b


# ---------------------------------------------------------------------------------------
# The butterfly exercise


def exercise_path(path=None) -> Path:
    """The reader's file: an absolute path, a path from here, or from the repository root."""
    root = kernels.kernels_dir().parent
    if path is None:
        return kernels.kernels_dir() / "exercises" / "butterfly_skeleton.c"
    p = Path(path)
    for candidate in (p, root / p):
        if candidate.exists():
            return candidate.resolve()
    raise FileNotFoundError(f"no file {p} (looked here and in {root})")


def check_exercise(path=None, nps=range(1, 9), sizes: str = "0,8,56,8200",
                   timeout: float = 120.0, stop_at_first: bool = True) -> bool:
    """Compile the reader's butterfly (kernels_c/exercises/butterfly_skeleton.c or a copy) and
    compare it with MPI_Allreduce on every rank, for every P in `nps` and every size.

    Prints one line per P and returns True when all pass. The compiler's message is printed
    as it is when the file does not compile."""
    src = exercise_path(path)
    try:
        kernels.compile_kernel(src, "executable")
    except kernels.CompileError as e:
        print(f"[butterfly] does not compile:\n{e}")
        return False
    all_ok = True
    for P in nps:
        try:
            kernels.run_mpiexec(src, P, {"algorithm": "mine", "sizes": sizes,
                                         "iterations": 3, "repetitions": 1}, timeout=timeout)
            print(f"[butterfly] P = {P}: equals MPI_Allreduce at sizes {sizes} bytes")
        except kernels.ValidationFailed as e:
            detail = next((l.split(": ", 2)[-1] for l in e.stderr.splitlines()
                           if l.startswith("commbook kernel:")), "")
            print(f"[butterfly] P = {P}: WRONG. {e.output.result if e.output else e} "
                  f"First difference: {detail}")
            all_ok = False
        except kernels.KernelTimeout:
            print(f"[butterfly] P = {P}: did not finish in {timeout:g} s (a deadlock? two ranks "
                  f"both in MPI_Send or MPI_Recv waiting for each other)")
            all_ok = False
        except kernels.KernelFailed as e:
            print(f"[butterfly] P = {P}: failed: {e}")
            all_ok = False
        if not all_ok and stop_at_first:
            print("[butterfly] stopped at the first failing P.")
            break
    if all_ok:
        print(f"[butterfly] correct for every P in {list(nps)}.")
    return all_ok


# ---------------------------------------------------------------------------------------
# Models next to measurements


def model_name(op: str, algorithm: str) -> str:
    """The commbook.models.collectives name of a kernel algorithm (or a library label)."""
    if (op, algorithm) in MODEL_NAMES:
        return MODEL_NAMES[op, algorithm]
    if algorithm.startswith("library:"):
        ident = algorithm.split(":")[1]
        name = (library_model_name("openmpi", op, ident)
                or library_model_name("mpich", op, ident))
        if name is not None:
            return name
    raise ValueError(f"no model for {op} algorithm '{algorithm}'")


def _model_time(op, name, P, n, lam, b, gamma, segment_bytes):
    from .models import collectives as mc
    if name == "pipeline":
        # the pipeline's closed form: a schedule of ceil(n / segment) steps would be slow
        if segment_bytes is None:
            return mc.closed_form(op, name, P, n, lam, b, gamma)
        k = max(1, math.ceil(n / segment_bytes))
        return 0.0 if P == 1 else mc.pipeline_time(P, n, lam, b, k)
    return mc.predict(op, name, P, n, lam, b, gamma)


def predict_table(op: str, algorithms, P, sizes, lam: float, b: float, gamma: float = 0.0,
                  segment_bytes: int | None = None) -> pd.DataFrame:
    """Model times (us) for kernel algorithm names at every (P, size): algorithm, np,
    size_bytes, t_us. Library labels with a known coll_tuned number use its model."""
    rows = []
    for alg in algorithms:
        name = model_name(op, alg)
        for p in np.atleast_1d(P):
            for n in np.atleast_1d(sizes):
                t = _model_time(op, name, int(p), float(n), lam, b, gamma, segment_bytes)
                rows.append((alg, int(p), int(n), float(t)))
    return pd.DataFrame(rows, columns=["algorithm", "np", "size_bytes", "t_us"])


def crossover_size(P: int, lam: float, b: float, segment_bytes: int, hi: float = 2.0**34) -> float:
    """Message size (bytes) above which the pipelined chain (segments of segment_bytes) beats
    the binomial tree for a broadcast to P ranks, in the Hockney model; inf if it never does
    below `hi`. Found by bracketing the models' difference on a grid, then scipy brentq."""
    from scipy.optimize import brentq

    def diff(n):
        return (_model_time("bcast", "pipeline", P, n, lam, b, 0.0, segment_bytes)
                - _model_time("bcast", "binomial", P, n, lam, b, 0.0, None))

    grid = np.geomspace(1, hi, 400)
    d = np.array([diff(n) for n in grid])
    change = np.nonzero((d[:-1] > 0) & (d[1:] <= 0))[0]
    if len(change) == 0:
        return float("inf")
    i = change[-1]  # the last crossing: from there on the pipeline stays ahead
    # the pipeline's time jumps where the segment count steps; brentq needs a sign change only
    return float(brentq(diff, grid[i], grid[i + 1], xtol=1.0))


# ---------------------------------------------------------------------------------------
# Models of what Open MPI runs, on a cluster whose links have classes (core, socket, node)


def ompi_chain_schedule(P: int, fanout: int = 4):
    """Open MPI's coll_tuned "chain" broadcast (algorithm 2) as a schedule of
    commbook.models.collectives.Message steps: `fanout` chains hang from the root (the
    default coll_tuned_bcast_algorithm_chain_fanout is 4), ranks 1..P-1 cut into consecutive
    runs, the first ones one longer (P = 10: 1-2-3, 4-5, 6-7, 8-9). Checked against the
    library's own message counts in tests/test_collectives.py. The root sends to the chain heads
    one per step; every rank forwards in the step after it received."""
    from .models.collectives import Message

    if isinstance(P, bool) or int(P) != P or P < 1:
        raise ValueError(f"P must be a whole number >= 1, not {P!r}")
    if isinstance(fanout, bool) or int(fanout) != fanout or fanout < 1:
        raise ValueError(f"fanout must be a whole number >= 1, not {fanout!r}")
    if P == 1:
        return []
    f = min(int(fanout), P - 1)
    q, r = divmod(P - 1, f)
    steps: dict[int, list] = {}
    start = 1
    for i in range(f):
        chain = list(range(start, start + q + (1 if i < r else 0)))
        start += len(chain)
        steps.setdefault(i, []).append(Message(0, chain[0]))
        for k in range(len(chain) - 1):
            steps.setdefault(i + 1 + k, []).append(Message(chain[k], chain[k + 1]))
    return [steps[s] for s in sorted(steps)]


def orfeo_link_parameters(transport: str = "ucx", library: str = "Open MPI",
                          machine: str = "orfeo-thin") -> dict:
    """{'core': (lambda_us, b_MBps), 'socket': ..., 'node': ...} from the ORFEO ping-pong
    figures of the seed report (data/orfeo/pingpong_seed.csv, Hockney fit per mapping)."""
    from . import orfeo
    t = orfeo.summary_table("pingpong_seed")
    t = t[(t.machine == machine) & (t.transport == transport) & t.mpi_library.str.startswith(library)]
    out = {r.mapping: (float(r.latency_us), float(r.bandwidth_fit_MBps)) for r in t.itertuples()}
    missing = {"core", "socket", "node"} - set(out)
    if missing:
        raise ValueError(f"no ping-pong figures for {sorted(missing)} with {library} {transport} "
                         f"on {machine}")
    return out


def link_class_time(steps, n, G, placement, params: dict):
    """Time of a schedule when each message costs lambda + n/b of its link class: the
    dearest link on its path ('core', 'socket', 'node', from commbook.topology.pair_class).
    A step costs its slowest message; steps add up. n may be an array."""
    from . import topology as topo
    from .models import collectives as mc

    place = list(placement)
    cls: dict = {}

    def link(m):
        key = (place[m.src], place[m.dst])
        if key not in cls:
            cls[key] = topo.pair_class(G, *key)
        if cls[key] not in params:
            raise ValueError(f"no (lambda, b) for link class '{cls[key]}'")
        return params[cls[key]]

    lam0, b0 = params["core"]
    return mc.schedule_time(steps, n, lam0, b0,
                            extra_us=lambda m: link(m)[0] - lam0,
                            beta_factor=lambda step: [b0 / link(m)[1] for m in step])


def rank_finish_times(steps, n, G, placement, params: dict, send_overhead: float | None = None,
                      eager_limit: float = 4096):
    """When each rank is done with one call, in the link-class model. A rank that receives is
    done at the end of the step of its last receive; its later sends add `send_overhead`
    each (default: lambda of the 'core' class) when the message is at most `eager_limit`
    bytes (eager: the library buffers it and returns), or keep it busy to the end of the
    step of the send when larger (rendezvous: the send waits for the receiver). A gather's
    root is done when the last block is in. The slowest rank is the collective's time; OSU
    reports the mean over ranks."""
    place = list(placement)
    P = len(place)
    o = params["core"][0] if send_overhead is None else float(send_overhead)
    ends = np.cumsum([float(link_class_time([step], n, G, place, params)) for step in steps])
    finish = np.zeros(P)
    last_recv = np.full(P, -1)
    for s, step in enumerate(steps):
        for m in step:
            last_recv[m.dst] = s
            finish[m.dst] = ends[s]
    for s, step in enumerate(steps):
        for m in step:
            if s > last_recv[m.src]:
                if m.frac * n <= eager_limit:
                    finish[m.src] += o
                else:
                    finish[m.src] = max(finish[m.src], ends[s])
    return finish


ORFEO_THIN = dict(nodes=2, sockets=2, cores=12)  # 2 x Xeon Gold 6126 per node (seeds/002)


def orfeo_predictions(op: str, algorithms, nps, n: float, mapping: str = "core",
                      params: dict | None = None, cluster: dict = ORFEO_THIN,
                      statistic: str = "max") -> pd.DataFrame:
    """Link-class model times (us) on the ORFEO THIN pair of nodes for algorithm names as the
    ORFEO tables spell them (basic_linear, chain, binary_tree, binomial; "chain" is Open MPI's
    four chains, "one chain" the single chain of the seed report's model). Ranks placed like
    `mpirun --map-by mapping`. statistic "max": the slowest rank (the collective's time);
    "mean": the mean over ranks of rank_finish_times, which is what OSU prints as its average
    latency. Columns: algorithm, np, size_bytes, t_us."""
    if statistic not in ("max", "mean"):
        raise ValueError(f"statistic must be 'max' or 'mean', not '{statistic}'")
    from . import topology as topo
    from .models import collectives as mc

    params = params or orfeo_link_parameters()
    G = topo.cluster(**cluster)
    names = {"basic_linear": "linear", "linear": "linear", "binary_tree": "binary_tree",
             "binomial": "binomial", "one chain": "chain"}
    rows = []
    for alg in algorithms:
        for P in nps:
            if alg == "chain" and op == "bcast":
                steps = ompi_chain_schedule(int(P))
            elif alg in names:
                steps = mc.schedule(op, names[alg], int(P))
            else:
                raise ValueError(f"no model for the ORFEO {op} algorithm '{alg}'")
            place = topo.place(G, int(P), mapping)
            if statistic == "max":
                t = link_class_time(steps, n, G, place, params)
            else:
                t = rank_finish_times(steps, n, G, place, params).mean()
            rows.append((alg, int(P), int(n), float(t)))
    return pd.DataFrame(rows, columns=["algorithm", "np", "size_bytes", "t_us"])


def validation_table(runs: dict) -> pd.DataFrame:
    """{(kernel, P): KernelOutput} -> one row per run: kernel, P, algorithms, sizes, verdict."""
    rows = []
    for (op, P), out in runs.items():
        rows.append(dict(kernel=op, P=P, algorithms=", ".join(dict.fromkeys(out.table.algorithm)),
                         sizes=", ".join(str(s) for s in dict.fromkeys(out.table.size_bytes)),
                         result=out.result))
    return pd.DataFrame(rows)


def tree_depth(steps) -> int:
    """Hops from the root (rank 0) to the farthest rank of a broadcast schedule."""
    depth = {0: 0}
    for step in steps:
        for m in step:
            if m.src not in depth:
                raise ValueError(f"rank {m.src} sends before it has received (step {step})")
            depth[m.dst] = depth[m.src] + 1
    return max(depth.values())


def matching_patterns(messages: pd.DataFrame, algorithm: str, P: int) -> list[str]:
    """The other algorithms in `messages` whose message matrix equals `algorithm`'s."""
    M = message_matrix(messages, algorithm, P)
    return [a for a in dict.fromkeys(messages.algorithm)
            if a != algorithm and (message_matrix(messages, a, P) == M).all()]


def calibrate_link_classes(table: pd.DataFrame, algorithm: str = "default") -> dict:
    """{'core': (lambda_us, b_MBps), 'socket': ..., 'node': ...} fitted (commbook.fit, Hockney on
    relative error) to the P = 2 rows of a broadcast table, one fit per mapping: with two
    processes a broadcast is one message over the link class that the mapping gives them
    (map by core: two cores of a socket; socket: across sockets; node: across nodes)."""
    from . import fit

    out = {}
    for mapping in ("core", "socket", "node"):
        rows = table[(table.np == 2) & (table.mapping == mapping) & (table.algorithm == algorithm)
                     & (table.size_bytes > 0)]
        if rows.size_bytes.nunique() < 3:
            raise ValueError(f"need P = 2 {algorithm} rows of at least 3 sizes mapped by {mapping}")
        h = fit.fit_hockney(rows.size_bytes.to_numpy(float), rows.t_us.to_numpy(float), n_boot=0)
        out[mapping] = (float(h.lambda_us), float(h.bandwidth_MBps))
    return out


def orfeo_or_empty(key: str) -> tuple[pd.DataFrame, str]:
    """commbook.orfeo.load(key), or an empty tidy table and a caption saying why: the ORFEO
    collective timings exist only as raw student files (no seed report quotes them), so a
    machine without them (`commbook data fetch orfeo`) draws the models alone."""
    from . import orfeo
    from .data import empty_table
    try:
        return orfeo.load(key)
    except orfeo.DataUnavailable as e:
        return empty_table(), f"ORFEO data not available here ({e}); only the models are drawn"


def run_summary(op: str, out) -> str:
    """What `commbook measure bcast|gather|allreduce` prints after a run: the library's algorithm
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
            pairs = ", ".join(f"{r.src}->{r.dst}" + (f" x{r.count}" if r.count > 1 else "")
                              for r in g.itertuples() if r.count > 0) or "none"
            lines.append(f"messages the library counted in one {alg} call: {pairs}")
    return "\n".join(lines)
