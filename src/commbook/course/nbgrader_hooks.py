"""nbgrader, set up for the book's assignments (the course's `nbgrader_config.py` calls
:func:`configure`; nothing else imports this module).

* Released answer cells keep their ``x_answer = ...`` line: the solution region of the source
  notebook is replaced by nothing rather than nbgrader's ``raise NotImplementedError()``.
* Autograding runs only the cells grading needs (nbgrader's setup, answer and test cells),
  not the page's experiments: those ran on the student's machine, whose saved measurements the
  tests read (`commbook.course.grading`), and re-running them for forty students would take
  hours and give other numbers.
* The student's own files (the C exercises) are not overwritten by the source's skeletons.
"""

from __future__ import annotations

import json
from pathlib import Path

from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute

MANIFEST = "commbook-course.json"  # written by commbook.course.assignments.build


def is_graded_cell(cell) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and any(meta.get(k) for k in ("solution", "grade", "locked"))


class ExecuteGradedCells(Execute):
    """nbgrader's Execute, running only nbgrader's own cells (setup, answers, tests)."""

    def preprocess_cell(self, cell, resources, index):
        if not is_graded_cell(cell):
            return cell, resources
        return super().preprocess_cell(cell, resources, index)


def configure(c, course_dir: str | Path) -> None:
    """Set the nbgrader config `c` for the course in `course_dir` (its manifest gives the
    student files of each assignment and the C exercises' time limit)."""
    manifest_path = Path(course_dir) / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    c.CourseDirectory.root = str(Path(course_dir).resolve())
    c.CourseDirectory.course_id = manifest.get("course_id", "commbook")
    c.ClearSolutions.code_stub = {"python": ""}
    c.Autograde.autograde_preprocessors = [
        ExecuteGradedCells if p is Execute else p for p in Autograde.class_traits()["autograde_preprocessors"].default()
    ]
    c.Autograde.exclude_overwriting = {a: info["student_files"] for a, info in manifest.get("assignments", {}).items()}
    # a test cell's own limit stops a C check; the kernel's limit is only the last resort
    if "time_limit" in manifest:
        time_limit = float(manifest["time_limit"])
    else:  # the exercises import every chapter (seconds): not for every nbgrader command
        from .grading import DEFAULT_TIME_LIMIT

        time_limit = DEFAULT_TIME_LIMIT
    c.Execute.timeout = int(time_limit + 120)
