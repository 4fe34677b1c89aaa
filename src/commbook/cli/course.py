"""`commbook assignments build` and `commbook grades summary`: the course around the book.

    commbook assignments build [--course-dir DIR] [--chapter NAME ...] [--time-limit S]
    commbook grades summary GRADEBOOK [--course-dir DIR] [--out DIR] [--title TEXT]

The first writes nbgrader source notebooks of the chapters with exercises
(commbook.course.assignments); the second reads nbgrader's gradebook and writes a table and a
chart of success rates and wrong directions per exercise (commbook.course.gradebook)."""

from __future__ import annotations

from pathlib import Path

from .common import CLIError, command_group


def register(sub):
    a_sub = command_group(sub, "assignments", "the chapters as nbgrader assignments (a course)")
    b = a_sub.add_parser(
        "build", help="write nbgrader source notebooks of the chapters with exercises into COURSE/source/<chapter>/"
    )
    b.add_argument(
        "--course-dir",
        default="_build/course",
        metavar="DIR",
        help="the nbgrader course directory (default _build/course)",
    )
    b.add_argument(
        "--chapter",
        action="append",
        metavar="NAME",
        help="only this chapter (repeat for more; default: every chapter with exercises)",
    )
    b.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="seconds a C exercise's check may run when graded (default 180)",
    )
    b.set_defaults(func=build)

    g_sub = command_group(sub, "grades", "what the class got wrong, from nbgrader's gradebook")
    s = g_sub.add_parser("summary", help="success rate and wrong directions per exercise: a table and a PNG")
    s.add_argument("gradebook", metavar="GRADEBOOK", help="nbgrader's gradebook.db")
    s.add_argument("--course-dir", metavar="DIR", help="where autograded/ is (default: the gradebook's folder)")
    s.add_argument("--out", metavar="DIR", help="where to write (default <course>/summary)")
    s.add_argument("--title", default="", help="the chart's title")
    s.set_defaults(func=summary)


def build(args) -> int:
    from .. import config
    from ..course import assignments
    from ..course.grading import DEFAULT_TIME_LIMIT

    limit = DEFAULT_TIME_LIMIT if args.time_limit is None else args.time_limit
    if not limit > 0:
        raise CLIError(f"--time-limit must be positive, not {args.time_limit}")
    root = config.checkout() or Path.cwd()
    if not (root / "_toc.yml").exists():
        raise CLIError(f"no _toc.yml in {root}: run this in the book's checkout")
    course = Path(args.course_dir)
    manifest = assignments.build(course, root, args.chapter, limit)
    for name, info in manifest["assignments"].items():
        if args.chapter and name not in args.chapter:
            continue
        points = sum(e["points"] for e in info["exercises"])
        n = len(info["exercises"])
        print(
            f"{course / 'source' / name / info['notebook']}: {n} exercise{'s' * (n != 1)}, "
            f"{points} point{'s' * (points != 1)}"
        )
    print(f"next: cd {course} && nbgrader generate_assignment <chapter>")
    return 0


def summary(args) -> int:
    from ..course import gradebook as S

    try:
        png, csv, table = S.write(args.gradebook, args.out, args.course_dir, args.title)
    except ImportError as e:
        raise CLIError(f"{e}: pip install -e '.[course]'") from None
    show = table.assign(success_rate=[f"{v:.0%}" for v in table.success_rate])
    print(show.to_string(index=False))
    print(f"wrote {csv}\nwrote {png}")
    return 0
