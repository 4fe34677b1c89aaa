"""Plugin: every case a verdict function returns carries every number its page's words quote.

The `{verdict}` directive parses the words of every case, so a role in any case whose number the
case picked did not glue fails the book build (a missing glue key), on whichever machine picks it.
While the tests run, every Verdict a verdict function returns is recorded (the function's name,
its declared cases, the case, its numbers). At the end those records are read against the pages:
for each `glued.verdict("NAME", ... FUNC(` in book/*.md, every number of NAME that the words of
`{verdict} NAME` quote, and that some case of FUNC glues, must be among the numbers of every case
the tests saw FUNC return. A run of part of the suite checks the verdicts that part exercised.
Under pytest-xdist each worker writes its records to a file; the controller checks them all.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_RECORDS: list[dict] = []
CALL = re.compile(r'glued\.verdict\(\s*"(\w+)",\s*(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\(')
DIRECTIVE = re.compile(r"^```\{verdict\} (\w+)\n(.*?)^```", re.S | re.M)
ROLE = re.compile(r"\{glue:\w+\}`(\w+?)(?::[^`]*)?`")


def _record(verdict) -> None:
    if not verdict.cases:
        return
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_name == "verdict_function" and "function" in frame.f_locals):
        frame = frame.f_back
    if frame is not None:
        fn = frame.f_locals["function"]
        _RECORDS.append(
            {
                "function": fn.__name__,
                "cases": sorted(verdict.cases),
                "case": verdict.case,
                "numbers": sorted(verdict.numbers),
            }
        )


def directives(root: Path = REPO / "book") -> list[dict]:
    """Each `{verdict}` of the book: its name, the function its page glues it from, its case
    terms and the numbers its words quote (the part of `{glue}` roles after NAME_)."""
    found = []
    for md in sorted(root.glob("*.md")):
        text = md.read_text()
        calls = {}
        for name, function in CALL.findall(text):
            calls.setdefault(name, set()).add(function)
        for name, body in DIRECTIVE.findall(text):
            # a term as MyST's definition list reads one: at the body's start or after a blank line
            lines = body.splitlines()
            term_like = [(i, line.strip()) for i, line in enumerate(lines) if line.strip() and line[0] not in " \t:"]
            terms = sorted(t for i, t in term_like if i == 0 or not lines[i - 1].strip())
            glued_terms = sorted(t for i, t in term_like if i and lines[i - 1].strip())
            quoted = {key[len(name) + 1 :] for key in ROLE.findall(body) if key.startswith(name + "_")}
            for function in sorted(calls.get(name, ())):
                found.append(
                    {
                        "page": md.stem,
                        "name": name,
                        "function": function,
                        "cases": terms,
                        "quoted": quoted,
                        "glued_terms": glued_terms,
                    }
                )
    return found


def missing_numbers(pages: list[dict], records: list[dict]) -> list[str]:
    """One line per case a function returned without a number its page's words quote."""
    problems = set()
    for d in pages:
        seen = [r for r in records if r["function"] == d["function"] and r["cases"] == d["cases"]]
        if d.get("glued_terms"):
            problems.add(
                f"{d['page']}.md {{verdict}} {d['name']}: {d['glued_terms']} follow the words before them with no "
                "blank line: MyST reads them as more words, not as cases (the build fails: no words for them)"
            )
        glued_somewhere = set().union(*(r["numbers"] for r in seen)) if seen else set()
        for r in seen:
            lacking = (d["quoted"] & glued_somewhere) - set(r["numbers"])
            if lacking:
                problems.add(
                    f"{d['page']}.md {{verdict}} {d['name']}: {d['function']} returned case {r['case']!r} "
                    f"without {sorted(lacking)}, which the words of its other cases quote (the build fails "
                    "wherever that case is picked: every case must glue the same numbers)"
                )
    return sorted(problems)


def pytest_configure(config):
    from commbook.verdict import Verdict

    original = Verdict.__post_init__

    def post_init(self):
        original(self)
        _record(self)

    Verdict.__post_init__ = post_init
    if not hasattr(config, "workerinput"):  # the controller, or a run without workers
        config._verdict_records = Path(tempfile.mkdtemp(prefix="commbook-verdicts-"))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):  # pytest-xdist: where a worker writes its records
    node.workerinput["verdict_records"] = str(node.config._verdict_records)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if hasattr(config, "workerinput"):
        folder = Path(config.workerinput["verdict_records"])
        (folder / f"{config.workerinput['workerid']}.json").write_text(json.dumps(_RECORDS))
        return
    folder = config._verdict_records
    records = list(_RECORDS)
    for f in folder.glob("*.json"):
        records += json.loads(f.read_text())
        f.unlink()
    folder.rmdir()
    problems = missing_numbers(directives(), records)
    if problems:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.section("verdict numbers", sep="=", red=True)
            for line in problems:
                reporter.line(line)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
