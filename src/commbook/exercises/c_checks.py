"""The C exercises: compile the reader's file and run it under MPI for several P."""

from __future__ import annotations

import functools
from pathlib import Path

from .. import config, kernels
from .core import Verdict
from .performance import check_performance

# ---------------------------------------------------------------------------------------
# The C exercises: compile the reader's file, run it under MPI for several P

C_EXERCISES = {"ring": "ring", "gather": "gather", "eager": "eager"}


def c_exercise_path(name: str, solution: bool = False) -> Path:
    """kernels_c/exercises/<name>_skeleton.c, or the reference <name>_solution.c."""
    if name not in C_EXERCISES:
        raise KeyError(f"no C exercise {name!r}; known: {sorted(C_EXERCISES)}")
    return config.kernels_dir() / "exercises" / f"{name}_{'solution' if solution else 'skeleton'}.c"


def _reader_file(name: str, path) -> Path:
    if path is None:
        return c_exercise_path(name)
    p = Path(path)
    root = config.kernels_dir().parent
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
        return None, (
            f"[{tag}] P = {P}: DEADLOCK: did not finish in {timeout:g} s and was killed "
            "(every rank waiting for another)."
        )
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


def _check_each_P(
    tag: str, src: Path, nps, options: dict, timeout: float, judge=None, performance: bool = False
) -> Verdict:
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
    return Verdict(check_performance(tag, src) if performance else True)


# seconds one ring step or one gather may take before it is a deadlock: a step of 1 MiB takes
# milliseconds, even with 5 ranks sharing 2 cores; a hang then costs the reader 5 s, not 20
WATCHDOG_S = 5
# seconds one C exercise may take when a course grades it (commbook.course.grading)
DEFAULT_TIME_LIMIT = 180.0


def check_ring(
    path=None,
    nps=(2, 3, 4, 5),
    sizes: str = "4,64K,1M",
    watchdog_s: int = WATCHDOG_S,
    timeout: float = 180.0,
    performance: bool = True,
) -> Verdict:
    """The ring of blocking MPI_Send / MPI_Recv (kernels_c/exercises/ring_skeleton.c or a copy):
    every message must reach the right rank at every step, for every P >= 2 (odd ones too) and
    every size, without deadlock (P = 1 is left out: a rank sending to itself with blocking calls
    cannot be fixed by ordering them). A hang is reported as a DEADLOCK (the harness's watchdog, or the
    timeout as a last resort). Then, with `performance`, its time on simulated ORFEO against the
    reference's (commbook.exercises.performance): a correct ring that is too slow returns False."""
    return _check_each_P(
        "ring",
        _reader_file("ring", path),
        nps,
        {"sizes": sizes, "repetitions": 2, "watchdog": watchdog_s},
        timeout,
        performance=performance,
    )


def check_gather(
    path=None,
    nps=range(1, 8),
    sizes: str = "0,1,7,1000,65537",
    watchdog_s: int = WATCHDOG_S,
    timeout: float = 120.0,
    performance: bool = True,
) -> Verdict:
    """The binomial gather (kernels_c/exercises/gather_skeleton.c or a copy): the same result as
    MPI_Gather for roots 0 and P-1, each rank but the root sending once, the root receiving
    ceil(log2 P) times. Then, with `performance`, its time on simulated ORFEO against the
    reference's: a correct gather that is too slow returns False."""
    return _check_each_P(
        "gather",
        _reader_file("gather", path),
        nps,
        {"sizes": sizes, "watchdog": watchdog_s},
        timeout,
        performance=performance,
    )


@functools.lru_cache(maxsize=4)
def reference_eager_limit(P: int = 2, max_bytes: str = "4M") -> int:
    """The eager limit found by the reference probe (kernels_c/exercises/eager_solution.c) with
    the MPI in use: the expected value of the eager exercise, measured, never typed in."""
    out = kernels.run_mpiexec(c_exercise_path("eager", solution=True), P, {"max": max_bytes}, timeout=120)
    return int(out.table["eager_limit_bytes"].iloc[0])


EAGER_TOLERANCE = 2.0  # a probe may find the reference's size within this factor (timing on a loaded machine)


def eager_range(ref: int, factor: float = EAGER_TOLERANCE) -> tuple[int, int]:
    """The sizes a probe may report when the reference probe found `ref`: [ref/factor, ref*factor]."""
    return int(ref / factor), int(ref * factor)


def check_eager(path=None, nps=(2, 3, 4), max_bytes: str = "4M", timeout: float = 120.0) -> Verdict:
    """The eager/rendezvous probe (kernels_c/exercises/eager_skeleton.c or a copy): the size it
    finds, rank 0 against the last rank, must be within a factor EAGER_TOLERANCE of the
    reference probe's on this MPI (both rest on timing; a loaded machine moves them a little)."""
    ref = reference_eager_limit(2, max_bytes)
    lo, hi = eager_range(ref)

    def judge(P, out):
        found = int(out.table["eager_limit_bytes"].iloc[0])
        cvars = ", ".join(v for k, v in out.meta.items() if k == "library_cvar")
        if not lo <= found <= hi:
            return (
                f"[eager] P = {P}: WRONG: your probe says {found} B; the reference probe finds\n"
                f"    a different size on this MPI{f' (the library says {cvars})' if cvars else ''}.\n"
                "    Is a size 'eager' only if its send completed before the receive was posted?"
            )
        return ""

    return _check_each_P("eager", _reader_file("eager", path), nps, {"max": max_bytes}, timeout, judge)


# --- the butterfly allreduce (book/collectives_algorithms.md) ------------------------------------------
def exercise_path(path=None) -> Path:
    """The reader's file: an absolute path, a path from here, or from the repository root."""
    root = config.kernels_dir().parent
    if path is None:
        return config.kernels_dir() / "exercises" / "butterfly_skeleton.c"
    p = Path(path)
    for candidate in (p, root / p):
        if candidate.exists():
            return candidate.resolve()
    raise FileNotFoundError(f"no file {p} (looked here and in {root})")


def check_exercise(
    path=None,
    nps=range(1, 9),
    sizes: str = "0,8,56,8200",
    timeout: float = 120.0,
    stop_at_first: bool = True,
    performance: bool = True,
) -> bool:
    """Compile the reader's butterfly (kernels_c/exercises/butterfly_skeleton.c or a copy) and
    compare it with MPI_Allreduce on every rank, for every P in `nps` and every size; the
    harness (kernels_c/butterfly_harness.h) also counts the messages, which must be a
    butterfly's, and refuses to build MPI's collectives and the package's own algorithms.

    Prints one line per P and returns True when all pass. The compiler's message is printed
    as it is when the file does not compile. Then, with `performance`, its time on simulated
    ORFEO against the reference's: a correct butterfly that is too slow (serialised exchanges:
    the same messages) returns False."""
    src = exercise_path(path)
    try:
        kernels.compile_kernel(src, "executable")
    except kernels.CompileError as e:
        print(f"[butterfly] does not compile:\n{e}")
        return False
    all_ok = True
    for P in nps:
        try:
            kernels.run_mpiexec(
                src, P, {"algorithm": "mine", "sizes": sizes, "iterations": 3, "repetitions": 1}, timeout=timeout
            )
            print(f"[butterfly] P = {P}: equals MPI_Allreduce at sizes {sizes} bytes, with a butterfly's messages")
        except kernels.ValidationFailed as e:
            words = _kernel_words(e.stderr)
            detail = next((w for w in words if "NOT A BUTTERFLY" in w), words[0] if words else "")
            if "NOT A BUTTERFLY" in detail:
                print(f"[butterfly] P = {P}: WRONG: {detail.split('NOT A BUTTERFLY: ', 1)[-1]}")
            else:
                print(
                    f"[butterfly] P = {P}: WRONG. {e.output.result if e.output else e} "
                    f"First difference: {detail.split(': ', 1)[-1]}"
                )
            all_ok = False
        except kernels.KernelTimeout:
            print(
                f"[butterfly] P = {P}: did not finish in {timeout:g} s (a deadlock? two ranks "
                f"both in MPI_Send or MPI_Recv waiting for each other)"
            )
            all_ok = False
        except kernels.KernelFailed as e:
            print(f"[butterfly] P = {P}: failed: {e}")
            all_ok = False
        if not all_ok and stop_at_first:
            print("[butterfly] stopped at the first failing P.")
            break
    if all_ok:
        print(f"[butterfly] correct for every P in {list(nps)}.")
        if performance:
            return check_performance("butterfly", src)
    return all_ok
