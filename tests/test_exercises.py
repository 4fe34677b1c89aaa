"""The exercises: self-checks that hold no answer on the page, and C exercises whose checks
really compile and run the reader's file under MPI (and fail on wrong or deadlocking code)."""

import ast
import re
from pathlib import Path

import pytest
import slow_exercises

from commbook import config
from commbook import exercises as E
from commbook.booktools import split_solutions
from commbook.exercises import feedback

REPO = Path(__file__).resolve().parents[1]
# every page with an exercise directive, and every chapter an exercise is registered for
CHAPTERS = sorted(
    {md.stem for md in (REPO / "book").glob("*.md") if "{exercise}" in md.read_text(encoding="utf-8")}
    | {ex.chapter for ex in E.REGISTRY.values()}
)


def student_visible(repo, chapter):
    """(code cells, the text outside solution directives) of a chapter's source."""
    text = split_solutions((repo / "book" / f"{chapter}.md").read_text())[0]
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, flags=re.S)
    code = [
        "\n".join(l for l in c.splitlines() if not l.startswith(":")) for c in cells if not c.lstrip().startswith("%%")
    ]  # cell magics (%%writefile) hold no Python
    return code, text


def check_calls(code_cells):
    for src in code_cells:
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check":
                yield node


def number_forms(value):
    """How an expected value could be written in a chapter: 3 and 4 significant digits,
    with and without thousands separators (, and \\, and thin spaces)."""
    v = float(value)
    forms = set()
    for digits in (3, 4):
        r = float(f"{v:.{digits}g}")
        forms.add(f"{r:g}")
        if r == int(r) and abs(r) >= 1000:
            i = int(r)
            forms |= {f"{i}", f"{i:,}", f"{i:,}".replace(",", r"\,"), f"{i:,}".replace(",", " ")}
    return forms


def test_every_exercise_has_a_reference(orfeo_mirror, monkeypatch):
    monkeypatch.setenv("COMMBOOK_ORFEO_MIRROR", str(orfeo_mirror))  # data-gather reads raw files
    for name, ex in E.REGISTRY.items():
        value = E.expected(name, **{k: 12345.0 for k in ex.inputs})
        assert value is not None, name
        if ex.kind == "number":
            assert float(value) > 0, name


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_check_cells_name_only_the_exercise_and_the_answer(repo, chapter):
    code, _ = student_visible(repo, chapter)
    calls = list(check_calls(code))
    for call in calls:
        name = call.args[0].value
        ex = E.exercise(name)
        assert ex.chapter == chapter, f"{name} is registered for {ex.chapter}, used in {chapter}"
        assert len(call.args) == 2, f"{chapter}: check({name!r}, ...) passes more than the answer"
        assert {k.arg for k in call.keywords} <= set(ex.inputs), (
            f"{chapter}: check({name!r}) passes {[k.arg for k in call.keywords]}; allowed {ex.inputs}"
        )
    used = {c.args[0].value for c in calls}
    registered = {n for n, e in E.REGISTRY.items() if e.chapter == chapter}
    assert used == registered, (
        f"{chapter}: registered but unchecked {registered - used}, checked but unregistered {used - registered}"
    )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_expected_value_or_formula_in_student_visible_text(repo, chapter):
    code, text = student_visible(repo, chapter)
    for name, ex in E.REGISTRY.items():
        if ex.chapter != chapter:
            continue
        for g in ex.giveaways:
            assert g not in text, f"{chapter}: '{g}' computes the answer of {name} on the page"
        if ex.inputs:
            continue  # the reference depends on this machine's measurement: no fixed number
        if ex.kind == "choice":
            continue  # a choice is one of the options the question itself names
        value = E.expected(name)
        if float(value) == int(value) and abs(value) < 1000:
            continue  # small whole numbers (hops, links) are everywhere in a chapter's text
        for form in number_forms(value):
            hit = re.search(rf"(?<![\d.]){re.escape(form)}(?![\d])", text)
            assert hit is None, (
                f"{chapter}: the answer of {name} ({value:.6g}) shows as '{form}': "
                f"...{text[max(0, hit.start() - 80) : hit.end() + 40]}..."
            )


def test_the_leak_scan_can_fail():
    """A chapter that prints the answer in its check cell is caught by both scans."""
    leaky = (
        '```{code-cell} ipython3\ncheck("pp-nhalf", n_half_answer, 0.99e-6 * 12060e6)\n```\n'
        "The answer is 11\\,940 bytes.\n"
    )
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", leaky, flags=re.S)
    assert len(next(check_calls(cells)).args) == 3
    assert any(re.search(rf"(?<![\d.]){re.escape(f)}(?![\d])", leaky) for f in number_forms(E.expected("pp-nhalf")))


def test_check_prints_a_verdict_without_the_reference_when_wrong(capsys):
    assert E.check("pp-tcp", ...).case == "not_answered"
    assert feedback.match("check.not_answered", capsys.readouterr().out) == {"name": "pp-tcp"}
    verdict = E.check("pp-tcp", 1.0)
    out = capsys.readouterr().out
    assert not verdict and verdict.case == "too_low" and feedback.match("check.too_low", out)["answer"] == "1"
    assert f"{E.expected('pp-tcp'):.4g}" not in out
    assert E.check("pp-tcp", E.expected("pp-tcp"))
    assert E.check("topo-place", " Core ")
    assert not E.check("topo-place", "node")
    with pytest.raises(TypeError, match="copy_MBps"):
        E.check("jac-ts", 1.0)
    with pytest.raises(KeyError, match="known"):
        E.check("no-such-exercise", 1.0)


def test_ring_exercise_expects_the_slowest_link():
    """The 1 ms ring: at tens of kB the dearest class is the socket link (lowest b), not the
    node link the old exercise used; the reference puts the model ring at 1 ms."""
    from commbook.chapters.ring.exercises import _thin_ring
    from commbook.models.ring import ring_time

    links, thin = _thin_ring()
    n = E.expected("ring-1ms")
    assert ring_time([48], n, links, thin)[0] == pytest.approx(1000, rel=1e-6)
    assert ring_time([48], (1000 / 96 - 0.99) * 12090, links, thin)[0] > 1500


# ---- C exercises under MPI ---------------------------------------------------------------

mpi = pytest.mark.mpi


@mpi
def test_ring_check_passes_the_solution_and_reports_the_skeletons_deadlock(capsys):
    assert E.check_ring(E.c_exercise_path("ring", solution=True), nps=(1, 2, 3, 4))
    assert feedback.match("c_check.correct", capsys.readouterr().out)["nps"] == "[1, 2, 3, 4]"
    # the skeleton (send, then receive, everywhere) works for 4 bytes ...
    assert E.check_ring(E.c_exercise_path("ring"), nps=(2, 3), sizes="4", performance=False)
    capsys.readouterr()
    # ... and deadlocks at 1 MiB: the check says so, and stops
    verdict = E.check_ring(E.c_exercise_path("ring"), nps=(3, 4), sizes="4,1M", watchdog_s=5, timeout=300)
    out = capsys.readouterr().out
    assert (verdict.case, verdict.facts) == ("deadlock", {"P": 3})  # and stopped there: no P = 4
    assert feedback.match("c_check.deadlock", out)["P"] == "3"  # the watchdog, not the timeout, caught it
    assert feedback.match("c_check.deadlock", verdict.said)["P"] == "3"  # the line the grader quotes
    assert "1048576-byte messages" in out  # the harness's own words


# A reader's mistake: the edits (old text: new text) that make a file wrong in one way, each of
# which must apply or the test proves nothing, the verdict's case, and what the harness or the
# compiler must then say in the check's report.
RING_REVERSED = (
    {
        "MPI_Send(sendbuf, n, MPI_CHAR, right": "MPI_Send(sendbuf, n, MPI_CHAR, left",
        "MPI_Recv(recvbuf, n, MPI_CHAR, left": "MPI_Recv(recvbuf, n, MPI_CHAR, right",
    },
    "wrong_result",
    [],
)
RING_SENDRECV = (
    {
        "    MPI_Send(sendbuf, n, MPI_CHAR, right, 0, comm);\n"
        "    MPI_Recv(recvbuf, n, MPI_CHAR, left, 0, comm, MPI_STATUS_IGNORE);": "    MPI_Sendrecv(sendbuf, n, MPI_CHAR, right, 0, recvbuf, n, MPI_CHAR, left, 0, comm,"
        " MPI_STATUS_IGNORE);"
    },
    "does_not_compile",
    ["allows_only_MPI_Send_and_MPI_Recv"],
)
GATHER_LINEAR = (
    {
        "    /* TODO: the steps of the tree (send and stop, or receive a subtree's blocks) */\n": "    if (v) MPI_Send(held, n, MPI_CHAR, root, 0, comm);\n"
        "    else for (int b = 1; b < P; b++)\n"
        "        MPI_Recv(held + (size_t)b * n, n, MPI_CHAR, (b + root) % P, 0, comm, MPI_STATUS_IGNORE);\n",
        "memcpy(recvbuf + (size_t)root * (size_t)n, held, (size_t)n);": "for (int b = 0; b < P; b++) memcpy(recvbuf + (size_t)((b + root) % P) * n, "
        "held + (size_t)b * n, (size_t)n);",
    },
    "wrong_result",
    ["root received 4 messages", "ceil(log2 P) = 3"],
)
COMPILE_ERROR = ({"int v =": "int v = ;"}, "does_not_compile", ["error"])
# (exercise, start from the solution?, the mistake, the check's arguments)
WRONG_FILES = [
    pytest.param("ring", True, RING_REVERSED, dict(nps=(3,), sizes="4"), id="ring-wrong-direction"),
    pytest.param("ring", False, RING_SENDRECV, dict(nps=(2,), sizes="4"), id="ring-refuses-sendrecv"),
    pytest.param("gather", False, GATHER_LINEAR, dict(nps=(5,), sizes="8"), id="gather-linear-is-not-binomial"),
    pytest.param("gather", False, COMPILE_ERROR, dict(nps=(2,)), id="compile-error-shows-the-compiler"),
]


@mpi
@pytest.mark.parametrize("name, from_solution, mistake, run", WRONG_FILES)
def test_check_fails_a_wrong_file_and_says_why(tmp_path, capsys, name, from_solution, mistake, run):
    edits, case, says = mistake
    text = E.c_exercise_path(name, solution=from_solution).read_text()
    for old, new in edits.items():
        assert old in text, f"the edit no longer applies to {name}: {old!r}"
        text = text.replace(old, new)
    f = tmp_path / f"{name}_wrong.c"
    f.write_text(text)
    verdict = getattr(E, f"check_{name}")(f, **run)
    assert not verdict and verdict.case == case
    out = capsys.readouterr().out
    for words in says:
        assert words in out
    assert verdict.said and verdict.said.splitlines()[0] in out  # the failure's line, for the grader


@mpi
@pytest.mark.parametrize(
    "name, solution_nps, skeleton_nps, skeleton_facts",
    [
        ("gather", range(1, 7), (1, 3), {"P": 3}),
        ("eager", (2, 3), (2,), {"P": 2, "found": 0}),  # the skeleton's probe finds no size
    ],
)
def test_check_passes_the_solution_and_fails_the_skeleton(capsys, name, solution_nps, skeleton_nps, skeleton_facts):
    check = getattr(E, f"check_{name}")
    assert check(E.c_exercise_path(name, solution=True), nps=solution_nps)
    assert feedback.match("c_check.correct", capsys.readouterr().out) == {"name": name, "nps": str(list(solution_nps))}
    verdict = check(E.c_exercise_path(name), nps=skeleton_nps)
    assert not verdict and (verdict.case, verdict.facts) == ("wrong_result", skeleton_facts)


@mpi
def test_reference_eager_limit_is_a_real_threshold():
    ref = E.reference_eager_limit()
    assert 0 < ref < 4 << 20  # this MPI sends small messages eagerly and large ones not


def test_skeletons_and_solutions_are_shipped_together():
    for name in E.C_EXERCISES:
        assert E.c_exercise_path(name).exists() and E.c_exercise_path(name, solution=True).exists()
    with pytest.raises(KeyError):
        E.c_exercise_path("nope")
    assert config.kernels_dir().joinpath("exercise_harness.h").exists()


# ---- the butterfly allreduce: a butterfly's result AND a butterfly's messages


def _butterfly_file(tmp_path, body: str):
    skeleton = E.exercise_path().read_text()
    old = skeleton[skeleton.index("static void my_allreduce") : skeleton.index("static int cb_kernel")]
    f = tmp_path / "my_butterfly.c"
    f.write_text(skeleton.replace(old, body))
    return f


LINEAR_ALLREDUCE = """static void my_allreduce(const double *s, double *r, int n, MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    double *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    for (int i = 0; i < n; i++) r[i] = s[i];
    if (rank == 0) {
        for (int q = 1; q < P; q++) {
            MPI_Recv(tmp, n, MPI_DOUBLE, q, 0, comm, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++) r[i] += tmp[i];
        }
        for (int q = 1; q < P; q++) MPI_Send(r, n, MPI_DOUBLE, q, 1, comm);
    } else {
        MPI_Send(r, n, MPI_DOUBLE, 0, 0, comm);
        MPI_Recv(r, n, MPI_DOUBLE, 0, 1, comm, MPI_STATUS_IGNORE);
    }
    free(tmp);
}

"""


@mpi
def test_butterfly_check_passes_the_reference_solution(capsys):
    assert E.check_exercise(config.kernels_dir() / "exercises" / "butterfly_solution.c", nps=(1, 2, 3, 5, 8))
    assert feedback.match("c_check.correct", capsys.readouterr().out)["nps"] == "[1, 2, 3, 5, 8]"


@mpi
def test_butterfly_check_refuses_mpi_allreduce(tmp_path, capsys):
    f = _butterfly_file(
        tmp_path,
        """static void my_allreduce(const double *s, double *r, int n, MPI_Comm comm)
{
    MPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm);
}

""",
    )
    assert E.check_exercise(f, nps=(2,)).case == "does_not_compile"
    assert "this_exercise_asks_for_your_own_allreduce" in capsys.readouterr().out  # the compiler's words


@mpi
def test_butterfly_check_refuses_a_linear_algorithm_by_its_messages(tmp_path, capsys):
    f = _butterfly_file(tmp_path, LINEAR_ALLREDUCE)
    # right sums, wrong pattern: P = 2 and 3 cannot tell them apart, P = 4 can
    verdict = E.check_exercise(f, nps=(4,))
    assert (verdict.case, verdict.facts) == ("wrong_result", {"P": 4})
    out = capsys.readouterr().out  # the harness's words, at P = 4
    assert feedback.match("c_check.wrong", out)["detail"].startswith(
        "4 ranks sent 6 messages (at most 3 from one rank)"
    )
    assert "a butterfly on 4 ranks sends 8" in out


# ---- the performance point: the reader's program against the solution on simulated ORFEO ----------


@pytest.mark.parametrize("name", sorted(slow_exercises.EDITS))
def test_a_slow_but_correct_variant_loses_the_performance_point_and_the_solution_keeps_it(smpi, tmp_path, name):
    ref = E.simulated_performance(name, E.performance.reference_path(name))
    assert ref.ok is True and all(mine == theirs for _, mine, theirs in ref.rows)  # deterministic
    slow = E.simulated_performance(name, slow_exercises.slow_variant(name, tmp_path))
    assert slow.ok is False and len(slow.rows) == len(ref.rows)
    what, mine, theirs = slow.worst()
    assert mine > E.performance.TOLERANCE * theirs
    said = feedback.match("performance.too_slow", slow.line())
    assert slow.case == "too_slow" and (said["mine"], said["reference"]) == (f"{mine:.4g}", f"{theirs:.4g}")


@mpi
def test_the_butterfly_self_check_fails_serialised_exchanges_on_their_time(smpi, tmp_path, capsys):
    f = slow_exercises.slow_variant("butterfly", tmp_path)
    verdict = E.check_exercise(f, nps=(2, 4))
    out = capsys.readouterr().out
    assert feedback.match("c_check.correct", out)["nps"] == "[2, 4]"  # the message counters cannot tell it apart
    assert not verdict and verdict.case == "too_slow"
    assert feedback.match("performance.too_slow", out)["where"] == feedback.say("performance.where", P=16)
    assert E.check_exercise(E.performance.reference_path("butterfly"), nps=(2,)).case == "fast_enough"


def test_without_smpi_the_performance_point_is_not_graded_and_says_why(monkeypatch, capsys):
    from commbook.simulate import runner

    monkeypatch.setattr(runner, "status", lambda: runner.SMPIStatus(None, None, ""))
    verdict = E.check_performance("butterfly", E.performance.reference_path("butterfly"))
    assert verdict and (verdict.case, verdict.facts) == ("not_graded", {"reason": "no_smpi"})
    said = feedback.match("performance.not_graded", capsys.readouterr().out)
    assert said["name"] == "butterfly" and feedback.match("performance.why.no_smpi", said["why"])


# ---- hints, choices, ranges


def test_hints_are_graduated_and_never_give_the_value(capsys):
    E.core._wrong_answers.clear()
    ex = E.exercise("scal-amdahl")
    value = E.expected("scal-amdahl")
    for attempt in (1, 2, 3, 4):
        verdict = E.check("scal-amdahl", value * 3)
        out = capsys.readouterr().out
        assert not verdict and verdict.case == "too_high" and ex.hint in out
        assert (ex.method in out) == (attempt >= 3), attempt
        assert not any(f in out for f in number_forms(value))
    assert E.check("scal-amdahl", value).case == "correct"


def test_every_exercise_has_a_hint_and_a_worked_step():
    assert [n for n, e in E.REGISTRY.items() if not e.hint or not e.method] == []


def _hints_files():
    return sorted((REPO / "src" / "commbook").rglob(E.core.HINTS_FILE))


def test_every_hint_is_for_an_exercise_of_its_package():
    """A table of a hints file names an exercise whose reference is in that file's package."""
    assert _hints_files()
    stray = []
    for path in _hints_files():
        package = ".".join(path.parent.relative_to(REPO / "src").parts)
        for name in E.core.read_hints(path):
            ex = E.REGISTRY.get(name)
            if ex is None or ex.expected.__module__.rpartition(".")[0] != package:
                stray.append(f"{path.relative_to(REPO)}: [{name!r}]")
    assert stray == []


def test_hint_and_method_are_read_from_the_hints_file(tmp_path):
    f = tmp_path / "hints.toml"
    f.write_text('["x-y"]\nhint = """\\\nlook at the \\\n  bandwidth.\\\n"""\nmethod = "divide: bytes by B/s."\n')
    assert E.core.read_hints(f) == {"x-y": {"hint": "look at the bandwidth.", "method": "divide: bytes by B/s."}}
    ex = E.exercise("scal-amdahl")
    told = E.core.hints_of(ex.expected.__module__.rpartition(".")[0])["scal-amdahl"]
    assert (ex.hint, ex.method) == (told["hint"], told["method"])


@pytest.mark.parametrize(
    "text, names",
    [
        ('["x-y"]\nhint = "a"\nmethod = "b\n', "line 3"),  # unterminated string
        ('["x-y"]\nhint = "a"\n', '["x-y"]'),  # no method
        ('["x-y"]\nhint = "a"\nmethod = 3\n', '["x-y"]'),
        ('["x-y"]\nhint = "a"\nmethod = "b"\nmethd = "c"\n', '["x-y"]'),  # a misspelt key is not lost
        ('["x-y"]\nhint = " "\nmethod = "b"\n', '["x-y"]'),
    ],
)
def test_a_malformed_hints_file_names_file_and_entry(tmp_path, text, names):
    f = tmp_path / "hints.toml"
    f.write_text(text)
    with pytest.raises(ValueError) as e:
        E.core.read_hints(f)
    assert str(f) in str(e.value) and names in str(e.value)


def test_no_docstring_holds_a_hint_or_a_method():
    """What a reader is told lives in hints.toml, where a page's author reads it, not in code."""
    found = []
    for path in sorted((REPO / "src" / "commbook").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node) or ""
                if re.search(r"(^|\n\n)\s*(Hint|Method):", doc):
                    found.append(f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 1)}")
    assert found == []


def test_choices_ignore_spaces_and_case(capsys):
    ref = E.expected("jac-decomp grid")
    spaced = " x ".join(ref.split("x")).upper()
    assert spaced != ref and E.check("jac-decomp grid", spaced).case == "correct"
    assert E.normalise_choice("2 × 2 × 2") == "2x2x2"


def test_the_eager_check_accepts_a_range():
    assert E.eager_range(4096) == (2048, 8192)
    lo, hi = E.eager_range(65536)
    assert lo < 65536 < hi


# ---- the feedback's words: feedback.toml --------------------------------------------------------


class AnyValue:
    """A stand-in for a field's value: takes any number format, or a text one."""

    def __format__(self, spec):
        try:
            return format(1.5, spec)
        except ValueError:
            return format("x", spec)


def feedback_calls():
    """(where, key, the field names passed) of every say(...) in the package."""
    for path in sorted((REPO / "src" / "commbook").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = getattr(node, "func", None)
            if isinstance(node, ast.Call) and (getattr(func, "id", None) or getattr(func, "attr", None)) == "say":
                where = f"{path.relative_to(REPO)}:{node.lineno}"
                key = node.args[0] if node.args else None
                keys = [key.body, key.orelse] if isinstance(key, ast.IfExp) else [key]
                assert all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys), (
                    f"{where}: say()'s key must be a literal (or a choice of two) so this test can see it"
                )
                assert all(kw.arg for kw in node.keywords), f"{where}: pass say()'s fields by name, not **"
                for k in keys:
                    yield where, k.value, {kw.arg for kw in node.keywords}


def test_every_feedback_key_has_its_template_and_every_template_is_used():
    calls = list(feedback_calls())
    templates = feedback.templates()
    assert len(calls) >= len(templates) > 0
    for where, key, passed in calls:
        assert key in templates, f"{where}: no [{key}] in feedback.toml"
        assert feedback.fields(key) <= passed, f"{where}: [{key}] uses {feedback.fields(key) - passed}, not passed"
        feedback.say(key, **{name: AnyValue() for name in passed})  # every format spec takes a value
    assert sorted(set(templates) - {key for _, key, _ in calls}) == [], "templates no code uses"


def test_a_missing_key_or_field_names_the_file_and_the_key():
    with pytest.raises(feedback.FeedbackError, match=r"feedback\.toml has no table \[check\.nowhere\]"):
        feedback.say("check.nowhere")
    with pytest.raises(feedback.FeedbackError, match=r"feedback\.toml: \[check\.too_high\] uses the field \{answer\}"):
        feedback.say("check.too_high", name="x")


def test_feedback_is_read_back_to_its_fields():
    text = feedback.say("check.too_high", name="pp-tcp", answer=1.23456, unit=" µs", tolerance=0.03, hint="h")
    assert feedback.match("check.too_high", f"before\n{text}\nafter") == dict(
        name="pp-tcp", answer="1.235", unit=" µs", tolerance="3%", hint="h"
    )
    assert feedback.match("check.too_low", text) is None
