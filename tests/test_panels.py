"""Run panels without a browser: values checked and refused in one line, the static note with the
equivalent command, and real runs through a Session (your run kept, exported, stopped at once
with nothing left)."""

import threading
import time
from pathlib import Path

import pytest

from commbook import data
from commbook import panel_specs as specs
from commbook.cluster import MPICluster, RunStopped
from commbook.panels import chapters
from commbook.panels import explorers as with_your_runs
from commbook.panels.runner import Session, error_line
from commbook.panels.widget import RunPanel
from commbook.process_tree import is_alive


@pytest.mark.parametrize("chapter", sorted(chapters.SPECS))
def test_every_chapter_panel_has_bounded_labelled_controls_and_a_command(chapter):
    spec = chapters.spec(chapter)
    values = specs.check(spec, spec.defaults())
    for c in spec.controls:
        if c.kind in ("int", "sizes", "ints"):
            assert c.lo < c.hi, c
        assert "(" in c.label or c.kind == "choice", f"{c.name}: the label gives no unit"
    cmd = specs.command(spec, values)
    assert cmd.startswith(f"commbook measure {spec.kernel_name(values)} --np ")
    assert spec.points(values), "a Run makes at least one run"


@pytest.mark.parametrize(
    "chapter, change, words",
    [
        (
            "pingpong",
            {"sizes": "0:128M"},
            "message sizes (bytes, MIN:MAX or list): 134217728 B is outside 0 B .. 64 MiB",
        ),
        ("pingpong", {"sizes": "lots"}, "is not a byte count"),
        ("pingpong", {"sizes": "1M:8"}, "MIN 1048576 B is larger than MAX 8 B"),
        ("pingpong", {"sizes": ",".join(str(i) for i in range(50))}, "at most 40"),
        ("pingpong", {"repetitions": 0}, "repetitions (timed runs per point): 0 is outside 1 .. 20"),
        ("ring", {"processes": "1,2"}, "processes (MPI ranks, list): 1 is outside 2 .."),
        ("ring", {"processes": "two"}, "'two' is not a whole number"),
        ("ring", {"size": "2"}, "message size (bytes): 2 B is outside 4 B"),
        ("matrix_add", {"processes": 4, "grids": "2x2x1,3x1x1"}, "3x1x1 has 3 processes, not 4"),
        ("matrix_add", {"grids": "2by1"}, "is not AxBxC or auto"),
        ("matrix_add", {"shape": "9x9x9"}, "'9x9x9' is not one of"),
        ("jacobi", {"L": "9000"}, "9000 is outside 8 .. 256"),
        ("jacobi", {"processes": ""}, "empty"),
        ("collectives", {"operation": "gather", "algorithm": "ring"}, "gather has no algorithm 'ring'"),
        ("collectives", {"operation": "scan"}, "'scan' is not one of bcast, gather, allreduce"),
        ("pingpong", {"placement": "rack"}, "placement (mpiexec --map-by): 'rack' is not one of"),
    ],
)
def test_bad_values_are_refused_in_one_line(chapter, change, words):
    spec = chapters.spec(chapter)
    with pytest.raises(specs.PanelInputError) as e:
        specs.check(spec, {**spec.defaults(), **change})
    assert words in str(e.value)
    assert "\n" not in str(e.value)


def test_sizes_read_like_the_kernels():
    assert specs.parse_sizes("0:16", 0, 64) == [0, 1, 2, 4, 8, 16]
    assert specs.parse_sizes("8,1K,1M", 0, 2**20) == [8, 1024, 2**20]
    assert specs.size_range([0, 1, 2, 4]) == "0:4"
    assert specs.size_range([8, 1024]) == "8,1K"


def test_placements_are_what_this_machine_has(monkeypatch):
    assert specs.placements()[0] == "core"
    monkeypatch.setattr(specs.machine, "sockets", lambda: 2)
    monkeypatch.setattr(specs, "emulated_nodes", lambda: 3)
    assert specs.placements() == ("core", "socket", "node")
    assert specs.map_by("socket") == "socket"
    assert specs.map_by("core") is None


def test_static_book_shows_the_command_not_controls(monkeypatch):
    monkeypatch.setenv(specs_env(), "1")
    bundle = RunPanel("ring")._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    assert "commbook measure ring --np 4 --size 4 " in bundle["text/html"]
    assert "<input" not in bundle["text/html"] and "<button" not in bundle["text/html"]


def specs_env():
    from commbook.panels.widget import ENV_STATIC

    return ENV_STATIC


def test_live_kernel_shows_the_widget(monkeypatch):
    monkeypatch.delenv(specs_env(), raising=False)
    panel = RunPanel("collectives")
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    # the algorithm menu follows the operation
    panel.controls["operation"].value = "gather"
    assert list(panel.controls["algorithm"].options) == ["library", "linear", "binomial"]
    # a refused value: one line in the panel, no run started
    panel.controls["sizes"].value = "0:1G"
    assert panel.start() is False
    assert "is outside 0 B .. 16 MiB" in panel.status.value
    assert panel._thread is None and panel.run_button.disabled is False


@pytest.mark.mpi
def test_your_run_is_kept_exported_and_drawn(mpi_cluster, tmp_path):
    panel = RunPanel("pingpong", cluster=mpi_cluster, earlier=[("earlier", data.empty_table())])
    assert panel.start({"placement": "core", "sizes": "8,1K", "repetitions": 1}, wait=True)
    assert "your run 1: 2 points" in panel.status.value, panel.status.value
    assert panel.progress.value == panel.progress.max == 2
    table = panel.session.table()
    assert list(table["size_bytes"]) == [8, 1024] and set(table["source"]) == {"your run 1"}
    assert panel.figure.value[:4] == b"\x89PNG"
    saved = panel.export(tmp_path / "mine.csv")
    back = data.read_measurements(saved).table
    assert list(back["size_bytes"]) == [8, 1024]
    assert panel.session.label() == "your run 2"


@pytest.mark.mpi
def test_a_failed_run_shows_the_kernels_own_line(mpi_cluster):
    spec = chapters.spec("pingpong")
    spec.options = lambda v, s: {"sizes": f"{s}:{s}", "repetitions": 1, "inject-error": 1}
    panel = RunPanel("pingpong", session=Session(spec, mpi_cluster))
    panel.start({"placement": "core", "sizes": "64", "repetitions": 1}, wait=True)
    assert "VALIDATION FAILED" in panel.status.value, panel.status.value
    assert "Traceback" not in panel.status.value and panel.session.runs == []


@pytest.mark.one_family
@pytest.mark.mpi
def test_stop_ends_a_long_run_at_once_and_leaves_nothing():
    """A ring on 3 engines (the panel's own cluster: the chapter's has 2) with 16 MiB messages
    and many repetitions runs for minutes; Stop kills it within seconds."""
    chapter_cluster = MPICluster(n=2)
    session = Session(chapters.spec("ring"), chapter_cluster)
    values = specs.check(
        session.spec,
        {"processes": "3", "placement": "core", "size": "16M", "algorithm": "MPI_Sendrecv", "repetitions": 20},
    )
    session.spec.options = lambda v, P: {"size": "16M:16M", "repetitions": 20, "iterations": 100000}
    errors = []
    worker = threading.Thread(target=lambda: _keep_error(errors, session.run, values))
    try:
        worker.start()
        deadline = time.monotonic() + 120
        while not (session._own and session._own.running) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)  # the kernel is inside MPI now
        pids = session._own.pids()
        assert pids
        t0 = time.monotonic()
        session.stop()
        worker.join(30)
        took = time.monotonic() - t0
        assert not worker.is_alive()
        assert errors and isinstance(errors[0], RunStopped), errors
        assert took < 10, took
        assert error_line(errors[0]).startswith("Stopped")
        time.sleep(1)
        assert [p for p in pids if is_alive(p)] == []
        assert session.runs == [] and not chapter_cluster.running
    finally:
        session.close()
        chapter_cluster.stop()


def _keep_error(errors, fn, *args):
    try:
        fn(*args)
    except Exception as e:
        errors.append(e)


SMALL = {
    "ring": ({"processes": "2", "size": "64", "repetitions": 1}, 1),
    "matrix_add": ({"processes": 2, "grids": "2x1x1,1x2x1", "shape": "100x100x100", "repetitions": 1}, 2),
    "jacobi": ({"processes": "2", "L": 16, "sweeps": 2}, 1),
    "collectives": (
        {"operation": "allreduce", "algorithm": "ring", "processes": 2, "sizes": "8,1K", "repetitions": 1},
        2,
    ),
}


@pytest.mark.mpi
@pytest.mark.parametrize("chapter", sorted(SMALL))
def test_each_chapter_panel_runs_on_the_chapters_cluster_and_feeds_its_explorer(chapter, mpi_cluster):
    from commbook.chapters.collectives import explorer as ce
    from commbook.chapters.jacobi import explorer as je
    from commbook.chapters.matrix_add import explorer as me
    from commbook.chapters.ring import explorer as re_

    change, rows = SMALL[chapter]
    spec = chapters.spec(chapter)
    session = Session(spec, mpi_cluster)
    table = session.run(specs.check(spec, {**spec.defaults(), **change}))
    assert len(table) == rows and session._own is None, "ran on the chapter's 2 engines"
    mine = session.series()
    chart = {
        "ring": lambda: re_.explorer(mine),
        "matrix_add": lambda: me.explorer(with_your_runs.matrix_measured(mine), shape="100x100x100", P=2),
        "jacobi": lambda: je.explorer(with_your_runs.jacobi_measured(mine)),
        "collectives": lambda: ce.explorer(with_your_runs.collectives_measured({}, mine), P=2, op="allreduce"),
    }[chapter]()
    assert "your run 1" in str(chart.spec())
    panel = RunPanel(chapter, session=session)
    assert panel.figure_png()[:4] == b"\x89PNG"


@pytest.mark.book
def test_the_html_book_shows_the_command_and_no_controls(repo, tmp_path):
    """A one-page book built like the real one (its _config.yml, the explorers' extension that
    marks the build as static): each panel is a note with its command, no widget, no input."""
    import re
    import subprocess
    import sys

    import yaml

    config = yaml.safe_load((repo / "_config.yml").read_text())
    config["sphinx"]["config"]["html_static_path"] = []
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "references.bib").write_text((repo / "references.bib").read_text())
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/page\n")
    (tmp_path / "book").mkdir()
    cells = "".join(
        f"```{{code-cell}} ipython3\n:tags: [remove-input]\n\nfrom commbook.panels."
        f"widget import panel\npanel({name!r})\n```\n\n"
        for name in sorted(chapters.SPECS)
    )
    (tmp_path / "book" / "page.md").write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\nkernelspec:\n  name: python3\n"
        "  display_name: Python 3\n---\n\n# Panels\n\n" + cells
    )
    jb = Path(sys.executable).with_name("jupyter-book")
    out = subprocess.run(
        [str(jb), "build", "-W", "-n", str(tmp_path)], capture_output=True, text=True, timeout=600, cwd=tmp_path
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    page = (tmp_path / "_build" / "html" / "book" / "page.html").read_text()
    article = page[page.index("<article") : page.index("</article>")]
    notes = re.findall(r"commbook-run-panel-note.*?<code>(.*?)</code>", article, re.S)
    assert [n.split()[2] for n in notes] == ["bcast", "jacobi", "matrix-add", "pingpong", "ring"]
    assert "widget-view" not in article and "<input" not in article and "<button" not in article
    assert "from commbook.panels" not in article, "the cell's code is hidden in the HTML"
