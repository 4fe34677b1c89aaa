"""What an assignment notebook calls: the student's side and the autograder's test cells.

Student side: :func:`setup` (the notebook's first cell) makes the page save what it measures in
``measurements/`` beside the notebook, so the measurements are handed in with it;
:func:`save_inputs` records the measurement an exercise is checked against (the page's
``check("jac-ts", answer, copy_MBps=b_copy)`` becomes ``save_inputs("jac-ts", copy_MBps=b_copy)``).

Grader side: :func:`grade` and :func:`grade_c` are the test cells. They compute the reference
when they run (``commbook.exercises.expected``, the self-check's own function), never from a
stored value, and judge with the self-check (``commbook.exercises.check``), so a grade is
what the student's own check said. A wrong answer raises :class:`NotYet`, whose one-line
message is the feedback (words from ``commbook/exercises/feedback.toml``, its outcome in
``NotYet.outcome``) (nbgrader gives 0 points to a test cell that raises). An exercise that
depends on a measurement is graded against the student's saved one, and the feedback says so.
A C exercise is compiled and run by the exercise harness in a child process with a time
limit; the process tree is killed when the limit passes, so a deadlock never hangs the grader.

This module is imported in students' kernels: it imports no nbgrader and nothing heavy."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import config
from ..exercises.c_checks import DEFAULT_TIME_LIMIT
from ..exercises.core import Verdict
from ..exercises.feedback import say

INPUTS_FILE = "exercise_inputs.json"
# the outcomes a feedback line names (tests/test_course.py and the class summary read them)
OUTCOMES = (
    "correct",
    "too high",
    "too low",
    "wrong choice",
    "not a number",
    "not answered",
    "no saved measurement",
    "deadlock",
    "does not compile",
    "wrong result",
    "time limit",
    "too slow",
)


class NotYet(AssertionError):
    """A wrong answer: the message is the feedback, shown without a traceback; `outcome` is one
    of OUTCOMES."""

    def __init__(self, message: str, outcome: str):
        super().__init__(message)
        self.outcome = outcome

    def _render_traceback_(self):  # IPython shows these lines instead of a traceback
        return [f"NotYet: {self}"]


def setup(folder: str | os.PathLike = "measurements") -> Path:
    """Save what this notebook measures in `folder` beside it (handed in with it)."""
    path = Path(folder).resolve()
    path.mkdir(parents=True, exist_ok=True)
    os.environ["COMMBOOK_MEASUREMENTS"] = str(path)
    return path


def _inputs_path() -> Path:
    return config.measurements_dir() / INPUTS_FILE


def save_inputs(name: str, **inputs) -> Path:
    """Record the measurements exercise `name` is checked against (atomically)."""
    from .. import exercises

    ex = exercises.exercise(name)
    if set(inputs) != set(ex.inputs):
        raise TypeError(f"exercise {name!r} depends on {list(ex.inputs)}, not {sorted(inputs)}")
    path = _inputs_path()
    saved = json.loads(path.read_text()) if path.exists() else {}
    saved[name] = {k: float(v) for k, v in inputs.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(saved, indent=1, sort_keys=True))
    tmp.replace(path)
    return path


def saved_inputs(name: str) -> dict:
    """The measurements the student saved for exercise `name`; NotYet when there are none."""
    from .. import exercises

    ex = exercises.exercise(name)
    if not ex.inputs:
        return {}
    path = _inputs_path()
    saved = json.loads(path.read_text()).get(name) if path.exists() else None
    if not saved or set(saved) != set(ex.inputs):
        outcome = "no saved measurement"
        inputs = ", ".join(ex.inputs)
        raise NotYet(
            say(
                "grade.no_saved_measurement",
                name=name,
                outcome=outcome,
                inputs=inputs,
                folder=path.parent.name,
                inputs_file=INPUTS_FILE,
            ),
            outcome,
        )
    return saved


def reference_answer(name: str):
    """The reference value, computed now (with the saved measurements it depends on)."""
    from .. import exercises

    return exercises.expected(name, **saved_inputs(name))


def _outcome(ex, answer, ref) -> str:
    if ex.kind == "choice":
        return "wrong choice"
    try:
        a, e = float(answer), float(ref)
    except (TypeError, ValueError):
        return "not a number"
    if math.isnan(a):
        return "not a number"
    return "too high" if a > e else "too low"


def grade(name: str, answer) -> Verdict:
    """The test cell of exercise `name`: passes (prints 'correct', returns a true verdict, shown as
    nothing, whose facts are the saved measurements) or raises NotYet."""
    from .. import exercises

    ex = exercises.exercise(name)
    inputs = saved_inputs(name)
    own = ""
    if inputs:
        measured = ", ".join(say("grade.measured_value", input=k, value=v) for k, v in inputs.items())
        own = say("grade.own_measurement", measured=measured, inputs_file=INPUTS_FILE)
    if answer is None or answer is Ellipsis:
        raise NotYet(say("grade.not_answered", name=name, outcome="not answered", own=own), "not answered")
    try:
        ref = exercises.expected(name, **inputs)
    except LookupError as e:  # the grader's machine lacks the data: not the student's fault
        raise RuntimeError(say("grade.cannot_compute", name=name, error=e)) from None
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        ok = bool(exercises.check(name, answer, **inputs))
    check_line = " ".join(said.getvalue().split())
    if ok:
        print(say("grade.correct", name=name, own=own))
        return Verdict(True, "correct", **inputs)
    outcome = _outcome(ex, answer, ref)
    raise NotYet(say("grade.not_yet", name=name, outcome=outcome, own=own, check_line=check_line), outcome)


# ----------------------------------------------------------------------------------- C exercises
# a C check's case key -> the outcome the class summary counts (any other failure: a wrong result)
C_OUTCOMES = {"does_not_compile": "does not compile", "deadlock": "deadlock", "wrong_result": "wrong result"}


def _c_result(result_file: Path, output: str) -> tuple[str, str]:
    """(outcome, the line the check printed for its failure) from what the child wrote to
    `result_file` (its verdict's case and `said`); a child that died before writing it: a wrong
    result, with the last line it printed."""
    try:
        verdict = json.loads(result_file.read_text())
    except (OSError, ValueError):
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        return "wrong result", lines[-1] if lines else say("grade.c_printed_nothing")
    return C_OUTCOMES.get(verdict.get("case"), "wrong result"), verdict.get("said") or say("grade.c_printed_nothing")


def c_checks() -> dict:
    """C exercise name -> its check in commbook.exercises (check_<name>; the butterfly's is
    check_exercise where there is no check_butterfly)."""
    from .. import exercises

    names = list(getattr(exercises, "C_EXERCISES", ())) + ["butterfly"]
    found = {n: getattr(exercises, f"check_{n}", None) for n in names}
    found["butterfly"] = found["butterfly"] or getattr(exercises, "check_exercise", None)
    return {n: f for n, f in found.items() if f is not None}


_PASSED: set = set()  # (exercise, file) whose grade_c passed in this kernel: the performance cell needs it


def grade_c(name: str, path: str, time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """The test cell of C exercise `name`: compile and check the student's file `path` with the
    exercise harness in a child process; past `time_limit` seconds every process it started is
    killed and the exercise gets 0 points."""
    from ..process_tree import ProcessTree

    known = c_checks()
    if name not in known:
        raise KeyError(f"no C exercise {name!r}; known: {sorted(known)}")
    watchdog = int(max(5, min(20, time_limit / 6)))
    tree = ProcessTree(f"grade {name}")
    with tempfile.TemporaryDirectory(prefix="commbook-grade-") as folder:
        result = Path(folder) / "verdict.json"
        cmd = [sys.executable, "-m", "commbook.course.grading", name, str(path), str(watchdog), str(time_limit)]
        try:
            proc = subprocess.Popen(
                [*cmd, str(result)],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                env={**os.environ, **tree.env()},
            )
            tree.adopt(proc.pid)
            try:
                out, _ = proc.communicate(timeout=time_limit)
            except subprocess.TimeoutExpired:
                tree.kill()
                proc.communicate()
                outcome = "time limit"
                text = say("grade.c_time_limit", name=name, outcome=outcome, path=path, time_limit=time_limit)
                raise NotYet(text, outcome) from None
        finally:
            tree.close()
        outcome, line = _c_result(result, out)
    if proc.returncode == 0:
        _PASSED.add((name, str(path)))
        print(say("grade.c_correct", name=name, path=path))
        return None
    raise NotYet(say("grade.c_not_yet", name=name, outcome=outcome, line=line), outcome)


def grade_c_performance(name: str, path: str) -> None:
    """The performance test cell of C exercise `name`: the student's file and the reference
    solution simulated on ORFEO (commbook.exercises.performance, deterministic: the same verdict
    on any machine under any load). Passes when it is fast enough, raises NotYet with both
    simulated times when it is too slow; without SMPI on the grading machine it is not graded
    and passes, saying so. The point goes to a correct program only: grade_c (the test cell
    above it) must have passed on the same file in this kernel."""
    from ..exercises import performance

    if (name, str(path)) not in _PASSED:
        outcome = "wrong result"
        raise NotYet(say("grade.performance_not_correct", name=name, outcome=outcome, path=path), outcome)
    perf = performance.simulated_performance(name, path)
    if perf.ok is False:
        outcome = "too slow" if perf.rows else "wrong result"
        line = perf.line().split("] ", 1)[-1]  # without its "[name] "
        raise NotYet(say("grade.c_not_yet", name=name, outcome=outcome, line=line), outcome)
    print(perf.line())


def _child(name: str, path: str, watchdog: int, time_limit: float, result_file: str) -> int:
    """Run one C check (the child process of grade_c); exit 0 when correct. Its verdict's case
    and failure line go to `result_file` as JSON: grade_c reads the case, not the words."""
    import inspect

    check = c_checks()[name]
    params = inspect.signature(check).parameters
    options = {"watchdog_s": watchdog} if "watchdog_s" in params else {}
    if "performance" in params:  # the performance point is its own test cell (grade_c_performance)
        options["performance"] = False
    # each P's run gets at most the whole limit; grade_c's own limit stops the whole check
    verdict = check(path, timeout=time_limit, **options)
    said = " ".join(getattr(verdict, "said", "").split())
    Path(result_file).write_text(json.dumps({"case": getattr(verdict, "case", ""), "said": said}))
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]))
