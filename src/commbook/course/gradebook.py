"""Where the class went wrong: `commbook grades summary GRADEBOOK`.

Reads nbgrader's gradebook (its sqlite database, through nbgrader's own API) for the score of
every test cell of every submission, and the autograded notebooks beside it for what each
failed test said (too high, too low, a wrong choice, a deadlock, ...: the outcome words of
`commbook.course.grading`). Writes a table (one row per exercise: students, success rate, how
many wrong answers of each kind, the most frequent) and a bar chart of the same."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .grading import OUTCOMES

_OUTCOME = re.compile(r"0 points: (" + "|".join(re.escape(o) for o in OUTCOMES) + r")\b")
WRONG = [o for o in OUTCOMES if o != "correct"] + ["error"]


def _test_names(course_dir: Path) -> dict[tuple[str, str], str]:
    """(assignment, grade_id) -> exercise name, from the manifest the build wrote."""
    from .assignments import C_KINDS, cell_id

    path = course_dir / "commbook-course.json"
    manifest = json.loads(path.read_text()) if path.exists() else {}
    names = {}  # in the order of the chapters and of their exercises
    for assignment, info in manifest.get("assignments", {}).items():
        for ex in info.get("exercises", []):
            prefix = "test-c-" if ex["kind"] in C_KINDS else "test-"
            names[(assignment, prefix + cell_id(ex["name"]))] = ex["name"]
    return names


def _feedback(course_dir: Path, student: str, assignment: str, notebook: str) -> dict[str, str]:
    """grade_id -> the text a test cell printed or raised, from the autograded notebook."""
    path = course_dir / "autograded" / student / assignment / f"{notebook}.ipynb"
    if not path.exists():
        return {}
    texts = {}
    for cell in json.loads(path.read_text())["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id:
            texts[grade_id] = "\n".join(
                "".join(o.get("text", "")) + f"{o.get('ename', '')}: {o.get('evalue', '')}"
                for o in cell.get("outputs", [])
            )
    return texts


def outcome(score: float, max_score: float, feedback: str) -> str:
    if max_score and score >= max_score:
        return "correct"
    m = _OUTCOME.search(feedback or "")
    return m.group(1) if m else "error"


def read_gradebook(gradebook: str | Path, course_dir: str | Path | None = None):
    """One row per (student, assignment, exercise): score, max_score, outcome."""
    import pandas as pd
    from nbgrader.api import Gradebook

    gradebook = Path(gradebook)
    if not gradebook.is_file():
        raise FileNotFoundError(f"no gradebook {gradebook}")
    course_dir = Path(course_dir) if course_dir else gradebook.resolve().parent
    names = _test_names(course_dir)
    rows = []
    with Gradebook(f"sqlite:///{gradebook.resolve()}") as gb:
        for assignment in gb.assignments:
            for submission in gb.assignment_submissions(assignment.name):
                student = submission.student.id
                for nb in submission.notebooks:
                    said = _feedback(course_dir, student, assignment.name, nb.name)
                    for g in nb.grades:
                        score = g.score or 0.0
                        rows.append(
                            dict(
                                assignment=assignment.name,
                                student=student,
                                notebook=nb.name,
                                exercise=names.get((assignment.name, g.name), g.name),
                                position=list(names).index((assignment.name, g.name))
                                if (assignment.name, g.name) in names
                                else len(names),
                                score=score,
                                max_score=g.max_score,
                                outcome=outcome(score, g.max_score, said.get(g.name, "")),
                            )
                        )
    if not rows:
        raise ValueError(f"{gradebook}: no autograded submission in the gradebook")
    return pd.DataFrame(rows)


def per_exercise(grades):
    """One row per exercise: students, success rate, count of each wrong outcome, the most
    frequent wrong outcome (what to revisit)."""
    import pandas as pd

    counts = pd.crosstab([grades.assignment, grades.exercise], grades.outcome)
    for o in ["correct"] + WRONG:
        if o not in counts:
            counts[o] = 0
    counts = counts[["correct"] + WRONG]
    wrong = counts[WRONG]
    table = pd.DataFrame({"students": counts.sum(axis=1)})
    table["success_rate"] = counts["correct"] / table["students"]
    table["most_frequent_wrong"] = [(wrong.columns[row.argmax()] if row.max() > 0 else "") for row in wrong.to_numpy()]
    table = table.join(wrong.loc[:, (wrong > 0).any(axis=0)])
    position = grades.groupby(["assignment", "exercise"]).position.min()
    table = table.join(position).sort_values("position").drop(columns="position")
    return table.reset_index()


COLOURS = {
    "correct": "#009E73",
    "too high": "#D55E00",
    "too low": "#0072B2",
    "wrong choice": "#CC79A7",
    "not a number": "#999999",
    "not answered": "#DDDDDD",
    "no saved measurement": "#F0E442",
    "deadlock": "#000000",
    "does not compile": "#E69F00",
    "wrong result": "#56B4E9",
    "time limit": "#882255",
    "error": "#AA4499",
}
HATCHES = {"too high": "//", "too low": "\\\\", "deadlock": "xx", "does not compile": "..", "wrong result": "--"}


def plot(grades, path: Path, title: str = "") -> Path:
    """Stacked bars: per exercise, the share of students with each outcome (Okabe-Ito colours
    and hatches, so colour is never the only carrier); written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    table = per_exercise(grades)
    shares = pd.crosstab([grades.assignment, grades.exercise], grades.outcome, normalize="index")
    shares = shares.reindex(pd.MultiIndex.from_frame(table[["assignment", "exercise"]]))
    present = [o for o in ["correct"] + WRONG if o in shares and shares[o].sum() > 0]
    labels = [f"{a}: {e}" for a, e in shares.index]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(labels) + 1.8))
    left = [0.0] * len(labels)
    for o in present:
        ax.barh(
            labels,
            shares[o].to_numpy(),
            left=left,
            color=COLOURS.get(o, "#777777"),
            hatch=HATCHES.get(o, ""),
            edgecolor="white",
            label=o,
        )
        left = [a + b for a, b in zip(left, shares[o].to_numpy())]
    for i, (rate, n) in enumerate(zip(table.success_rate, table.students)):
        ax.text(1.01, i, f"{rate:.0%} of {n}", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of students")
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.12 - 1.2 / (len(labels) + 4)),
        ncol=min(len(present), 5),
        fontsize=8,
        frameon=False,
    )
    ax.set_title(title or "Class results per exercise (success rate at right)", fontsize=10)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)
    return path


def write(gradebook, out_dir=None, course_dir=None, title: str = "") -> tuple[Path, Path, object]:
    """(PNG, CSV, table) of the class summary, in out_dir (default <course>/summary)."""
    grades = read_gradebook(gradebook, course_dir)
    out = Path(out_dir) if out_dir else Path(gradebook).resolve().parent / "summary"
    out.mkdir(parents=True, exist_ok=True)
    table = per_exercise(grades)
    csv = out / "class_summary.csv"
    tmp = csv.with_suffix(".tmp")
    table.to_csv(tmp, index=False)
    tmp.replace(csv)
    png = plot(grades, out / "class_summary.png", title)
    return png, csv, table
