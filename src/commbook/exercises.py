"""Self-checks for the book's exercises: the reader's answer against a reference the page never shows.

A chapter's check cell names only the exercise and the reader's value::

    check("pp-nhalf", n_half_answer)

The expected values live here, computed from the shipped data and the package's models (never
typed into a chapter), so reading the notebook does not give the answer away;
``tests/test_exercises.py`` fails if a chapter's student-visible text holds an expected value or
the call that computes it. A few exercises depend on what the page measured on this machine;
their checks take that measurement as a named input (``check("jac-ts", ts_answer,
copy_MBps=b_copy)``), never the answer.

The C exercises (``kernels_c/exercises/*_skeleton.c``) are checked by compiling the reader's file
and running it under MPI for several P: :func:`check_ring`, :func:`check_gather`,
:func:`check_eager` (and :func:`check_exercise` for the butterfly).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import kernels


class Verdict:
    """True or False for code, nothing extra on the page (the printed line says it all)."""

    def __init__(self, ok: bool):
        self.ok = bool(ok)

    def __bool__(self):
        return self.ok

    def __eq__(self, other):
        return bool(self) == bool(other)

    def __repr__(self):
        return f"Verdict({self.ok})"

    def _ipython_display_(self):
        pass


@dataclass(frozen=True)
class Exercise:
    """One self-checked exercise: how to compute its reference value, and how close is close."""

    name: str
    chapter: str                      # book/<chapter>.md
    expected: Callable[..., object]   # (**inputs) -> number or choice
    rel_tol: float = 0.02
    unit: str = ""
    hint: str = ""
    kind: str = "number"              # or "choice"
    inputs: tuple = ()                # measurements of the page the reference depends on
    giveaways: tuple = field(default=())  # code that computes the answer: never in the chapter


REGISTRY: dict[str, Exercise] = {}


def _register(ex: Exercise) -> Exercise:
    if ex.name in REGISTRY:
        raise ValueError(f"exercise {ex.name!r} registered twice")
    if ex.kind not in ("number", "choice"):
        raise ValueError(f"exercise kind must be 'number' or 'choice', not {ex.kind!r}")
    REGISTRY[ex.name] = ex
    return ex


def exercise(name: str) -> Exercise:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"no exercise {name!r}; known: {sorted(REGISTRY)}") from None


def expected(name: str, **inputs):
    """The reference value of an exercise (for instructors and tests)."""
    ex = exercise(name)
    missing = set(ex.inputs) - set(inputs)
    extra = set(inputs) - set(ex.inputs)
    if missing or extra:
        raise TypeError(f"exercise {name!r} takes the inputs {list(ex.inputs)}"
                        + (f"; missing {sorted(missing)}" if missing else "")
                        + (f"; unexpected {sorted(extra)}" if extra else ""))
    return ex.expected(**inputs)


def check(name: str, answer, **inputs) -> Verdict:
    """Print whether the reader's `answer` to exercise `name` is right and return the verdict.

    `answer` ... (the placeholder in the exercise cell) or None is reported as not answered yet.
    """
    ex = exercise(name)
    if answer is None or answer is Ellipsis:
        what = "choice" if ex.kind == "choice" else "value"
        print(f"[{name}] not answered yet: replace the ... with your {what}.")
        return Verdict(False)
    try:
        ref = expected(name, **inputs)
    except LookupError as e:  # the data the reference is computed from are not at hand
        print(f"[{name}] cannot check here: {e}")
        return Verdict(False)
    if ex.kind == "choice":
        ok = str(answer).strip().lower() == str(ref).strip().lower()
        print(f"[{name}] {'correct' if ok else 'not yet'}: {answer!r}. {'' if ok else ex.hint}".rstrip())
        return Verdict(ok)
    try:
        a, e = float(answer), float(ref)
    except (TypeError, ValueError):
        print(f"[{name}] {answer!r} is not a number.")
        return Verdict(False)
    ok = math.isclose(a, e, rel_tol=ex.rel_tol, abs_tol=1e-12)
    unit = f" {ex.unit}" if ex.unit else ""
    if ok:
        print(f"[{name}] correct: {a:.4g}{unit} (reference {e:.4g}{unit}, tolerance {ex.rel_tol:.0%}).")
    else:
        direction = "high" if a > e else "low"
        print(f"[{name}] not yet: {a:.4g}{unit} is too {direction} "
              f"(tolerance {ex.rel_tol:.0%}). {ex.hint}".rstrip())
    return Verdict(ok)


check_choice = check  # one entry point; the exercise knows whether it expects a choice


# ---------------------------------------------------------------------------------------
# The data the references are computed from


@functools.lru_cache(maxsize=None)
def _pingpong(mapping: str, transport: str, machine: str = "orfeo-thin", library: str = "Open MPI",
              bandwidth: str = "bandwidth_asymptotic_MBps"):
    """(λ µs, b MB/s) of one ping-pong row of data/orfeo/pingpong_seed.csv (b: the plateau, or
    the report's fit with bandwidth="bandwidth_fit_MBps")."""
    from . import orfeo
    t = orfeo.summary_table("pingpong_seed")
    row = t[(t.machine == machine) & (t.mapping == mapping) & (t.transport == transport)
            & t.mpi_library.str.startswith(library)]
    if len(row) != 1:
        raise LookupError(f"pingpong_seed.csv: {len(row)} rows for {machine} {mapping} {transport}")
    r = row.iloc[0]
    return float(r.latency_us), float(r[bandwidth])


def _thin_ring():
    from . import orfeo
    from .models.ring import Placement, links_from_table
    hw = orfeo.summary_table("hardware_seed").set_index("node_type").loc["THIN (Xeon Gold 6126)"]
    links = links_from_table(orfeo.summary_table("pingpong_seed"), "orfeo-thin", "ucx",
                             library="Open MPI")
    return links, Placement(int(hw.cores_per_socket), int(hw.sockets), map_by="core")


def _ring_time(P: int, n: float) -> float:
    from .models.ring import ring_time
    links, thin = _thin_ring()
    return float(ring_time([P], n, links, thin)[0])


def _ring_size_for(P: int, target_us: float) -> float:
    """The message size at which the THIN ring of P ranks takes target_us in the ring model."""
    from scipy.optimize import brentq
    return float(brentq(lambda n: _ring_time(P, n) - target_us, 0.0, 1e9, xtol=1e-3))


def _jacobi_thin_nodes():
    """(T_s, T_l, B/2) of the report's 2-THIN-node runs, from data/orfeo/jacobi_seed.csv."""
    from . import orfeo
    from .models import jacobi as jm
    return jm.seed_parameters(orfeo.summary_table("jacobi_seed"))[("orfeo-thin", "node")]


def _exercise(name: str, chapter: str, **details):
    """Register the decorated function as the reference of exercise `name` (imports inside it
    run only when a reference is asked for)."""
    def register(reference):
        _register(Exercise(name, chapter, reference, **details))
        return reference
    return register


# ---------------------------------------------------------------------------------------
# The exercises of the book, chapter by chapter


@_exercise("pp-nhalf", "pingpong", rel_tol=0.05, unit="B",
           hint="n½ = λ·b; convert µs to s and MB/s to B/s first.")
def _pp_nhalf():
    return math.prod(_pingpong("node", "ucx")) * 1e-6 * 1e6


@_exercise("pp-tcp", "pingpong", rel_tol=0.03, unit="µs",
           hint="n/b with n in bytes and b in MB/s is already in µs.")
def _pp_tcp():
    lam, b = _pingpong("node", "ob1-tcp")
    return lam + 2**20 / b


@_exercise("data-gather", "data", kind="choice",
           hint="A gather of 1 byte stays below about 1 µs up to 48 processes on THIN.")
def _data_gather():
    """Which operation the files labelled "gather" measured: the one whose medians at 16, 32
    and 48 processes they are closest to (mean |log ratio|), from the raw ORFEO files."""
    import numpy as np
    from . import orfeo

    def medians(dataset, algorithm=None):
        df = orfeo.load(dataset)[0]
        if "mapping" in df and algorithm is not None:
            df = df[(df.mapping == "core") & (df.algorithm == algorithm)]
        if not len(df):
            raise orfeo.DataUnavailable(f"no raw rows for {dataset} (fetch the ORFEO files)")
        return df.groupby("np").t_us.median().reindex([16, 32, 48]).to_numpy(float)

    labelled = medians("barbaralol/barrier")
    distance = {op: float(np.nanmean(np.abs(np.log(labelled / medians(ds, alg)))))
                for op, ds, alg in (("barrier", "giuliofantuzzi/barrier", "default"),
                                    ("gather", "marcobarrasso1/gather", "basic_linear"))}
    return min(distance, key=distance.get)


@_exercise("ring-p25", "ring", rel_tol=0.02, unit="µs",
           hint="Which link classes does the ring of 25 use? The model charges every step the dearest one.",
           giveaways=("ring_time(25", "ring_time([25]"))
def _ring_p25():
    return _ring_time(25, 4)


@_exercise("ring-epyc", "ring", rel_tol=0,
           hint="Link i joins ranks i and i+1; the wrap-around joins P-1 and 0.",
           giveaways=("boundaries(300)", "Placement(64, 2).boundaries"))
def _ring_epyc():
    from .models.ring import Placement
    return Placement(64, 2).boundaries(300)[2][0]


@_exercise("ring-1ms", "ring", rel_tol=0.03, unit="B",
           hint="Compute λ_c + n/b_c for every class the ring of 48 uses: which one is the dearest "
                "at sizes of tens of kilobytes? Solve 96·(λ_c + n/b_c) = 1000 µs for that class.",
           giveaways=("_ring_size_for", "brentq"))
def _ring_1ms():
    return _ring_size_for(48, 1000.0)


@_exercise("mat-orfeo", "matrix_add", rel_tol=0.03, unit="µs",
           hint="Each block is 100x100x100 doubles; the root sends 23 of them, three times.")
def _mat_orfeo():
    from .models import matrix as M
    from .models.hockney import Hockney
    lam, b = _pingpong("socket", "ucx", bandwidth="bandwidth_fit_MBps")
    blocks = M.block_sizes("2400x100x100", "24x1x1")
    moved = 8 * (int(blocks.sum()) - int(blocks.flat[0]))  # every block but the root's
    return 3 * M.collective_time(24, moved, Hockney(lam, b))


@_exercise("mat-halo", "matrix_add", rel_tol=0, unit="elements",
           hint="Minimise g_x + g_y + g_z with g_x·g_y·g_z = 24.",
           giveaways=("halo_elements(\"100x100x100\", M.best_grid",))
def _halo():
    from .models import matrix as M
    return M.halo_elements("100x100x100", M.best_grid("100x100x100", 24))


@_exercise("mat-pay", "matrix_add", rel_tol=0.02, hint="The limit is b / (24 r) with b in B/µs.",
           giveaways=("speedup_limit(5420",))
def _mat_pay():
    from .models.matrix import speedup_limit
    return speedup_limit(5420, 500)


@_exercise("topo-torus", "topology", rel_tol=0, unit="links",
           hint="Cutting a torus in two cuts each row (or column) twice: once in the middle, once "
                "on the wrap-around.",
           giveaways=("closed_form(T.torus(64))",))
def _topo_torus():
    from . import topology as T
    return T.closed_form(T.torus(64))["bisection"]


@_exercise("topo-saf", "topology", rel_tol=0.02, unit="µs",
           hint="With store-and-forward every hop pays t_h + n/t_w (t_w a bandwidth here).",
           giveaways=("message_time(65536, 5",))
def _topo_saf():
    from . import topology as T
    return float(T.message_time(65536, 5, 1.0, 0.1, 10000.0, "store-and-forward"))


@_exercise("topo-place", "topology", kind="choice",
           hint="By socket, ranks alternate between socket 0 and socket 1 of the first node.",
           giveaways=("pair_class(G, place[0], place[2])",))
def _topo_place():
    from . import topology as T
    G = T.cluster(nodes=2, sockets=2, cores=12)
    place = T.place(G, 26, "socket")
    return T.pair_class(G, place[0], place[2])


@_exercise("topo-ring16", "topology", rel_tol=0, unit="messages",
           hint="Every message goes 8 links the same way round; count the messages crossing one link.",
           giveaways=("link_loads(T.ring(16)",))
def _topo_ring16():
    from . import topology as T
    from .models import collectives as coll
    last = coll.schedule("allreduce", "recursive_doubling", 16)[-1]
    return max(T.link_loads(T.ring(16), [(m.src, m.dst) for m in last]).values())


@_exercise("coll-crossover", "collectives_algorithms", rel_tol=0.15, unit="B",
           hint="Set (P-2+k)(λ + s/b) with k = n/s equal to ⌈log2 P⌉(λ + n/b) and solve for n.",
           giveaways=("crossover_size(16",))
def _coll_crossover():
    from .chapters.collectives import crossover_size
    return crossover_size(16, 0.20, 6200.0, 16384)


@_exercise("coll-anomaly", "collectives_library", rel_tol=0, unit="hops",
           hint="Four chains share the 47 other processes; the root feeds one head per step.",
           giveaways=("ompi_chain_schedule(48)",))
def _coll_anomaly():
    from .chapters.collectives import ompi_chain_schedule, tree_depth
    return tree_depth(ompi_chain_schedule(48))


@_exercise("jac-decomp bytes", "jacobi", rel_tol=0.01, unit="B",
           hint="A face of a block nx*ny*nz normal to x has ny*nz doubles; count neighbours per dimension.",
           giveaways=("best_decomposition(240",))
def _jac_decomp_bytes():
    from .models.jacobi import best_decomposition
    return best_decomposition(240, 8)[1]


@_exercise("jac-decomp grid", "jacobi", kind="choice",
           hint="Compare the busiest process's bytes for the three decompositions.",
           giveaways=("best_decomposition(240",))
def _jac_decomp_grid():
    from .models.jacobi import best_decomposition
    return "x".join(map(str, best_decomposition(240, 8)[0]))


@_exercise("jac-ts", "jacobi", rel_tol=0.05, unit="s", inputs=("copy_MBps",),
           hint="T_s = L^3 x (bytes per lattice update) / bandwidth, with MB/s = 1e6 B/s.",
           giveaways=("ts_from_roofline(256",))
def _jac_ts(copy_MBps):
    from .models import jacobi as jm
    return jm.ts_from_roofline(256, copy_MBps, jm.code_balance(True, True))


@_exercise("jac-orfeo", "jacobi", rel_tol=0.01, unit="MLUP/s",
           hint="c = 1200^2 x 6 x 2 x 8 B; c/B with B in B/s; T_l in s.",
           giveaways=("performance_mlups(1200, 24",))
def _jac_orfeo():
    from .models import jacobi as jm
    T_s, T_l, B_half = _jacobi_thin_nodes()
    return jm.performance_mlups(1200, 24, T_s, 6, 2 * B_half, T_l)


# ---------------------------------------------------------------------------------------
# The C exercises: compile the reader's file, run it under MPI for several P

C_EXERCISES = {"ring": "ring", "gather": "gather", "eager": "eager"}


def c_exercise_path(name: str, solution: bool = False) -> Path:
    """kernels_c/exercises/<name>_skeleton.c, or the reference <name>_solution.c."""
    if name not in C_EXERCISES:
        raise KeyError(f"no C exercise {name!r}; known: {sorted(C_EXERCISES)}")
    return kernels.kernels_dir() / "exercises" / f"{name}_{'solution' if solution else 'skeleton'}.c"


def _reader_file(name: str, path) -> Path:
    if path is None:
        return c_exercise_path(name)
    p = Path(path)
    root = kernels.kernels_dir().parent
    for candidate in (p, root / p):
        if candidate.exists():
            return candidate.resolve()
    raise FileNotFoundError(f"no file {p} (looked here and in {root})")


def _kernel_words(stderr: str) -> list[str]:
    """The harness's own lines ('commbook kernel: rank r: ...'), without the prefix."""
    return [l.split(": ", 1)[-1] for l in stderr.splitlines() if l.startswith("commbook kernel:")]


def _run(tag: str, src: Path, P: int, options: dict, timeout: float):
    """Run the reader's program on P ranks: (output or None, one line saying what happened)."""
    try:
        out = kernels.run_mpiexec(src, P, options, timeout=timeout)
        return out, ""
    except kernels.KernelTimeout:
        return None, (f"[{tag}] P = {P}: DEADLOCK: did not finish in {timeout:g} s and was killed "
                      "(every rank waiting for another).")
    except kernels.KernelFailed as e:
        words = _kernel_words(e.stderr)
        if any("DEADLOCK" in w for w in words):
            stuck = sorted({w.split(":", 1)[0] for w in words if "DEADLOCK" in w})
            first = next(w for w in words if "DEADLOCK" in w).split("DEADLOCK: ", 1)[-1]
            return None, (f"[{tag}] P = {P}: DEADLOCK ({', '.join(stuck)}):\n    {first}.")
        detail = words[0] if words else (e.output.result if e.output else str(e).splitlines()[0])
        return None, f"[{tag}] P = {P}: WRONG: {detail}"


def _compile(tag: str, src: Path) -> bool:
    try:
        kernels.compile_kernel(src, "executable")
        return True
    except kernels.CompileError as e:
        print(f"[{tag}] does not compile:\n{e}")
        return False


def _check_each_P(tag: str, src: Path, nps, options: dict, timeout: float, judge=None) -> Verdict:
    if not _compile(tag, src):
        return Verdict(False)
    for P in nps:
        out, failure = _run(tag, src, P, options, timeout)
        if out is not None and judge is not None:
            failure = judge(P, out)
        if failure:
            print(failure)
            print(f"[{tag}] stopped at the first failing P.")
            return Verdict(False)
        print(f"[{tag}] P = {P}: correct.")
    print(f"[{tag}] correct for every P in {list(nps)}.")
    return Verdict(True)


def check_ring(path=None, nps=(1, 2, 3, 4, 5), sizes: str = "4,64K,1M",
               watchdog_s: int = 20, timeout: float = 180.0) -> Verdict:
    """The ring of blocking MPI_Send / MPI_Recv (kernels_c/exercises/ring_skeleton.c or a copy):
    every message must reach the right rank at every step, for every P (odd ones too) and every
    size, without deadlock. A hang is reported as a DEADLOCK (the harness's watchdog, or the
    timeout as a last resort)."""
    return _check_each_P("ring", _reader_file("ring", path), nps,
                         {"sizes": sizes, "repetitions": 2, "watchdog": watchdog_s}, timeout)


def check_gather(path=None, nps=range(1, 8), sizes: str = "0,1,7,1000,65537",
                 watchdog_s: int = 20, timeout: float = 120.0) -> Verdict:
    """The binomial gather (kernels_c/exercises/gather_skeleton.c or a copy): the same result as
    MPI_Gather for roots 0 and P-1, each rank but the root sending once, the root receiving
    ceil(log2 P) times."""
    return _check_each_P("gather", _reader_file("gather", path), nps,
                         {"sizes": sizes, "watchdog": watchdog_s}, timeout)


@functools.lru_cache(maxsize=4)
def reference_eager_limit(P: int = 2, max_bytes: str = "4M") -> int:
    """The eager limit found by the reference probe (kernels_c/exercises/eager_solution.c) with
    the MPI in use: the expected value of the eager exercise, measured, never typed in."""
    out = kernels.run_mpiexec(c_exercise_path("eager", solution=True), P, {"max": max_bytes},
                              timeout=120)
    return int(out.table["eager_limit_bytes"].iloc[0])


def check_eager(path=None, nps=(2, 3, 4), max_bytes: str = "4M", timeout: float = 120.0) -> Verdict:
    """The eager/rendezvous probe (kernels_c/exercises/eager_skeleton.c or a copy): the size it
    finds, rank 0 against the last rank, must equal the reference probe's on this MPI."""
    ref = reference_eager_limit(2, max_bytes)

    def judge(P, out):
        found = int(out.table["eager_limit_bytes"].iloc[0])
        cvars = ", ".join(v for k, v in out.meta.items() if k == "library_cvar")
        if found != ref:
            return (f"[eager] P = {P}: WRONG: your probe says {found} B; the reference probe finds\n"
                    f"    a different size on this MPI{f' (the library says {cvars})' if cvars else ''}.\n"
                    "    Is a size 'eager' only if its send completed before the receive was posted?")
        return ""
    return _check_each_P("eager", _reader_file("eager", path), nps, {"max": max_bytes},
                         timeout, judge)


# --- the butterfly allreduce (book/collectives_algorithms.md) ------------------------------
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
