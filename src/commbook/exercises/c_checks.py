"""The C exercises: compile the reader's file and run it under MPI for several P."""

from __future__ import annotations

import functools
from pathlib import Path

from .. import config, kernels
from .core import Verdict
from .feedback import say
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
    """Run the reader's program on P ranks: (output or None, the case key, one line saying what happened)."""
    try:
        out = kernels.run_mpiexec(src, P, options, timeout=timeout)
        return out, "", ""
    except kernels.KernelTimeout:
        return None, "deadlock", say("c_check.deadlock_timeout", name=tag, P=P, timeout=timeout)
    except kernels.KernelFailed as e:
        words = _kernel_words(e.stderr)  # the harness's DEADLOCK is its own word (exercise_harness.h)
        if any("DEADLOCK" in w for w in words):
            stuck = sorted({w.split(":", 1)[0] for w in words if "DEADLOCK" in w})
            first = next(w for w in words if "DEADLOCK" in w).split("DEADLOCK: ", 1)[-1]
            return None, "deadlock", say("c_check.deadlock", name=tag, P=P, ranks=", ".join(stuck), where=first)
        detail = words[0] if words else (e.output.result if e.output else str(e).splitlines()[0])
        return None, "wrong_result", say("c_check.wrong", name=tag, P=P, detail=detail)


def _compile(tag: str, src: Path) -> str:
    """'' when the reader's file compiles, else the compiler's first error line (its whole
    message is printed)."""
    try:
        kernels.compile_kernel(src, "executable")
        return ""
    except kernels.CompileError as e:
        print(say("c_check.does_not_compile", name=tag, error=e))
        lines = [line.strip() for line in str(e).splitlines() if line.strip()]
        return next((line for line in lines if "error" in line), lines[-1] if lines else "?")


def _check_each_P(
    tag: str, src: Path, nps, options: dict, timeout: float, judge=None, performance: bool = False
) -> Verdict:
    """The verdict's case: correct, does_not_compile, deadlock, wrong_result (facts: P), or with
    `performance` the performance check's (fast_enough, too_slow, ...). A failure's `said` is
    the line it printed (the compiler's first error when it does not compile), for the grader."""
    error = _compile(tag, src)
    if error:
        return Verdict(False, "does_not_compile", said=error)
    for P in nps:
        out, case, failure = _run(tag, src, P, options, timeout)
        facts = {}
        if out is not None and judge is not None:
            case, failure, facts = judge(P, out)
        if failure:
            print(failure)
            print(say("c_check.stopped", name=tag))
            return Verdict(False, case, P=P, said=failure, **facts)
        print(say("c_check.correct_at_P", name=tag, P=P))
    print(say("c_check.correct", name=tag, nps=list(nps)))
    return check_performance(tag, src) if performance else Verdict(True, "correct")


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
        """(case, the line, facts): found, the size the probe found."""
        found = int(out.table["eager_limit_bytes"].iloc[0])
        cvars = ", ".join(v for k, v in out.meta.items() if k == "library_cvar")
        if not lo <= found <= hi:
            library = say("c_check.eager_library", cvars=cvars) if cvars else ""
            return (
                "wrong_result",
                say("c_check.eager_wrong", name="eager", P=P, found=found, library=library),
                {"found": found},
            )
        return "", "", {"found": found}

    return _check_each_P("eager", _reader_file("eager", path), nps, {"max": max_bytes}, timeout, judge)


# --- the butterfly allreduce (book/collectives_algorithms.md) ------------------------------------------
class ShownVerdict(Verdict):
    """check_exercise's verdict: shown on the page as True or False, as it always was."""

    _ipython_display_ = None  # IPython then shows the repr

    def __repr__(self):
        return repr(self.ok)


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
) -> Verdict:
    """Compile the reader's butterfly (kernels_c/exercises/butterfly_skeleton.c or a copy) and
    compare it with MPI_Allreduce on every rank, for every P in `nps` and every size; the
    harness (kernels_c/butterfly_harness.h) also counts the messages, which must be a
    butterfly's, and refuses to build MPI's collectives and the package's own algorithms.

    Prints one line per P and returns a true verdict when all pass (its case as check_ring's). The compiler's message is printed
    as it is when the file does not compile. Then, with `performance`, its time on simulated
    ORFEO against the reference's: a correct butterfly that is too slow (serialised exchanges:
    the same messages) returns False."""
    src = exercise_path(path)
    error = _compile("butterfly", src)
    if error:
        return ShownVerdict(False, "does_not_compile", said=error)
    first = None  # (case, P, the line printed) of the first failing P
    for P in nps:
        try:
            kernels.run_mpiexec(
                src, P, {"algorithm": "mine", "sizes": sizes, "iterations": 3, "repetitions": 1}, timeout=timeout
            )
            print(say("c_check.butterfly_correct_at_P", name="butterfly", P=P, sizes=sizes))
            continue
        except kernels.ValidationFailed as e:
            words = _kernel_words(e.stderr)  # NOT A BUTTERFLY is the harness's (butterfly_harness.h)
            detail = next((w for w in words if "NOT A BUTTERFLY" in w), words[0] if words else "")
            if "NOT A BUTTERFLY" in detail:
                detail = detail.split("NOT A BUTTERFLY: ", 1)[-1]
                said = say("c_check.wrong", name="butterfly", P=P, detail=detail)
            else:
                result = e.output.result if e.output else e
                difference = detail.split(": ", 1)[-1]
                said = say("c_check.butterfly_wrong", name="butterfly", P=P, result=result, difference=difference)
            case = "wrong_result"
        except kernels.KernelTimeout:
            said, case = say("c_check.butterfly_timeout", name="butterfly", P=P, timeout=timeout), "deadlock"
        except kernels.KernelFailed as e:
            said, case = say("c_check.failed", name="butterfly", P=P, error=e), "wrong_result"
        print(said)
        first = first or (case, P, said)
        if stop_at_first:
            print(say("c_check.stopped", name="butterfly"))
            break
    if first:
        return ShownVerdict(False, first[0], P=first[1], said=first[2])
    print(say("c_check.correct", name="butterfly", nps=list(nps)))
    verdict = check_performance("butterfly", src) if performance else Verdict(True, "correct")
    return ShownVerdict(verdict.ok, verdict.case, **verdict.facts)
