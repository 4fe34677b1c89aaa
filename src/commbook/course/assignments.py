"""The chapters as nbgrader assignments: `commbook assignments build` (`make assignments`).

For each chapter with exercises this writes an nbgrader *source* notebook,
``<course>/source/<chapter>/<chapter>.ipynb``, and the C skeletons its exercises edit:

* the chapter as a notebook, solutions stripped as in the student edition, the C excerpts as
  code and the exercise questions as plain Markdown (commbook.notebook_code, :mod:`.exercise_text`);
* a locked first cell calling :func:`commbook.course.grading.setup` (the page's measurements
  are saved beside the notebook and handed in with it);
* each exercise's answer lines (``x_answer = ...``) in an nbgrader solution cell, whose
  solution region computes the reference when the source notebook runs (no value is stored,
  and the region is removed from the released notebook); the rest of the chapter's exercise
  cell (the self-check) follows unchanged;
* where the self-check passes a measurement (``check(name, x, copy_MBps=b_copy)``), a cell
  recording it before the answer cell (:func:`commbook.course.grading.save_inputs`);
* one locked autograder test cell per exercise, with its points, calling
  :func:`commbook.course.grading.grade` or :func:`~commbook.course.grading.grade_c`.

The course directory also gets ``nbgrader_config.py`` (if it has none) and a manifest,
``commbook-course.json``, read by :func:`commbook.course.nbgrader_hooks.configure`.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

from ..config import kernels_dir
from ..exercises.performance import RUNS as PERFORMANCE_RUNS
from .grading import DEFAULT_TIME_LIMIT, c_checks

POINTS = {"number": 1, "choice": 1, "c": 3, "c-performance": 1}
C_KINDS = ("c", "c-performance")  # the test cells of a C exercise: its check, its speed
SELF_CHECKS = ("check", "check_choice")


def c_calls() -> dict:
    """The name of each C exercise's check function -> the exercise."""
    return {f.__name__: name for name, f in c_checks().items()} | {"check_butterfly": "butterfly"}


NBGRADER_CONFIG = """\
# nbgrader's configuration for the commbook course (written by `commbook assignments build`).
from pathlib import Path

from commbook.course.nbgrader_hooks import configure

c = get_config()  # noqa: F821 (nbgrader provides it)
configure(c, Path(__file__).resolve().parent)
# c.Exchange.root = "/srv/nbgrader/exchange"   # where release and collect meet the students
# c.CourseDirectory.course_id = "mpi-course"
"""

SETUP = (
    "# Course setup (do not edit): what this notebook measures is saved in measurements/\n"
    "# beside it, and handed in with it; exercises that depend on it are graded on it.\n"
    "from commbook.course.grading import setup\n"
    "setup();"
)


def cell_id(text: str) -> str:
    """An nbgrader grade_id (letters, digits, - and _) for an exercise name."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")


def _nbgrader(grade_id: str, *, solution=False, grade=False, locked=False, points=None) -> dict:
    meta = {
        "grade_id": grade_id,
        "solution": solution,
        "grade": grade,
        "locked": locked,
        "schema_version": 3,
        "task": False,
    }
    if grade:
        meta["points"] = points
    return meta


def _calls(source: str):
    """(function name, call node) of every call in a cell's code (IPython magics skipped)."""
    code = "\n".join("" if l.lstrip().startswith(("%", "!")) else l for l in source.splitlines())
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return [], None
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            found.append((fn, node))
    return found, tree


def _code_cell(source: str, nbgrader: dict | None = None):
    import nbformat

    cell = nbformat.v4.new_code_cell(source)
    if nbgrader:
        cell.metadata["nbgrader"] = nbgrader
    return cell


def exercise_cells(cell, time_limit: float):
    """The cells that replace one chapter code cell, and the exercises found in it:
    ([cells], [(exercise, kind)], [student files])."""
    calls, tree = _calls(cell.source)
    checks = [n for fn, n in calls if fn in SELF_CHECKS and n.args and isinstance(n.args[0], ast.Constant)]
    calls_c = c_calls()
    c_found = [(calls_c[fn], n) for fn, n in calls if fn in calls_c]
    if not checks and not c_found:
        return [cell], [], []
    from .. import exercises

    out, found, files = [], [], []
    if checks:
        names = [n.args[0].value for n in checks]
        answers = [n.args[1].id for n in checks]
        lines = cell.source.splitlines()
        answer_rows = set()
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id in answers for t in stmt.targets):
                answer_rows |= set(range(stmt.lineno - 1, stmt.end_lineno))
        answer_part = [lines[i] for i in sorted(answer_rows)]
        rest = "\n".join(l for i, l in enumerate(lines) if i not in answer_rows).strip("\n")
        region = ["### BEGIN SOLUTION", "from commbook.course.grading import reference_answer"]
        region += [f"{var} = reference_answer({name!r})" for name, var in zip(names, answers)]
        region += ["### END SOLUTION"]
        for n, name in zip(checks, names):
            if n.keywords:  # the page's measurement the reference depends on, saved first
                args = ", ".join(f"{k.arg}={ast.unparse(k.value)}" for k in n.keywords)
                out.append(
                    _code_cell(
                        "# Saves the measurement the next exercise is graded against (do not edit).\n"
                        "from commbook.course.grading import save_inputs\n"
                        f"save_inputs({name!r}, {args});"
                    )
                )
        out.append(
            _code_cell("\n".join(answer_part + region), _nbgrader("answer-" + cell_id("-".join(names)), solution=True))
        )
        if rest:
            cell.source = rest
            out.append(cell)
        for n, name, var in zip(checks, names, answers):
            ex = exercises.exercise(name)
            out.append(
                _code_cell(
                    f"# Autograder test: {name} ({POINTS[ex.kind]} point{'s' * (POINTS[ex.kind] > 1)})\n"
                    f"from commbook.course.grading import grade\ngrade({name!r}, {var})",
                    _nbgrader("test-" + cell_id(name), grade=True, locked=True, points=POINTS[ex.kind]),
                )
            )
            found.append((name, ex.kind))
    else:
        out.append(cell)
    for name, node in c_found:
        path = (
            node.args[0].value
            if node.args and isinstance(node.args[0], ast.Constant)
            else f"kernels_c/exercises/{name}_skeleton.c"
        )
        out.append(
            _code_cell(
                f"# Autograder test: the C exercise {name} ({POINTS['c']} points): compiles {path}\n"
                f"# and runs the harness's check, stopped after {time_limit:g} s.\n"
                f"from commbook.course.grading import grade_c\n"
                f"grade_c({name!r}, {path!r}, time_limit={time_limit:g})",
                _nbgrader("test-c-" + cell_id(name), grade=True, locked=True, points=POINTS["c"]),
            )
        )
        found.append((name, "c"))
        files.append(path)
        if name in PERFORMANCE_RUNS:
            out.append(
                _code_cell(
                    f"# Autograder test: the performance of the C exercise {name} ({POINTS['c-performance']} point):\n"
                    f"# {path} and the reference solution simulated on ORFEO (SimGrid SMPI, the same on any machine).\n"
                    f"from commbook.course.grading import grade_c_performance\n"
                    f"grade_c_performance({name!r}, {path!r})",
                    _nbgrader(
                        "test-c-" + cell_id(f"{name}-performance"),
                        grade=True,
                        locked=True,
                        points=POINTS["c-performance"],
                    ),
                )
            )
            found.append((f"{name}-performance", "c-performance"))
    return out, found, files


def source_notebook(md_path: Path, time_limit: float = DEFAULT_TIME_LIMIT):
    """(nbgrader source notebook of a chapter, its exercises [(name, kind)], student files)."""
    import jupytext

    from ..notebook_code import expand_text
    from ..pages import split_solutions
    from .exercise_text import plain_exercises

    text, _ = split_solutions(md_path.read_text())
    text = plain_exercises(expand_text(text, md_path.parent, md_path.name))
    nb = jupytext.reads(text, fmt="md:myst")
    cells = [_code_cell(SETUP, _nbgrader("setup", locked=True))]
    found, files = [], []
    for cell in nb.cells:
        if "solution" in cell.get("metadata", {}).get("tags", []) or not cell.source.strip():
            continue
        if cell.cell_type == "code":
            new, ex, f = exercise_cells(cell, time_limit)
            cells += new
            found += ex
            files += f
        else:
            cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("jupytext", None)
    return nb, found, files


def chapters_with_exercises(root: Path) -> list[Path]:
    """The book's pages (table-of-contents order) whose code cells call a self-check or a C check."""
    from ..pages import chapter_files

    pattern = re.compile(r"\b(" + "|".join(SELF_CHECKS + tuple(c_calls())) + r")\(")
    code = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)
    return [md for md in chapter_files(root) if any(pattern.search(c) for c in code.findall(md.read_text()))]


def build(course_dir: Path, root: Path, chapters=None, time_limit: float = DEFAULT_TIME_LIMIT) -> dict:
    """Write the source notebooks of `chapters` (default: every chapter with exercises) into
    `course_dir`/source; returns the manifest {assignments: {chapter: {...}}, time_limit}."""
    import nbformat

    course_dir = Path(course_dir)
    pages = chapters_with_exercises(root)
    if chapters:
        known = {p.stem: p for p in pages}
        unknown = [c for c in chapters if c not in known]
        if unknown:
            raise ValueError(
                f"no exercises in chapter(s) {', '.join(unknown)}; chapters with exercises: {', '.join(known)}"
            )
        pages = [known[c] for c in chapters]
    manifest_path = course_dir / "commbook-course.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    manifest["time_limit"] = time_limit
    assignments = manifest.setdefault("assignments", {})
    for md in pages:
        nb, found, files = source_notebook(md, time_limit)
        if not found:  # a page that only mentions the self-checks
            continue
        folder = course_dir / "source" / md.stem
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        nbformat.validate(nb)
        nbformat.write(nb, folder / f"{md.stem}.ipynb")
        for f in files:
            (folder / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(kernels_dir().parent / f, folder / f)
        assignments[md.stem] = {
            "notebook": f"{md.stem}.ipynb",
            "student_files": files,
            "exercises": [{"name": n, "kind": k, "points": POINTS[k]} for n, k in found],
        }
    tmp = manifest_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=1))
    tmp.replace(manifest_path)
    config_file = course_dir / "nbgrader_config.py"
    if not config_file.exists():
        config_file.write_text(NBGRADER_CONFIG)
    return manifest
