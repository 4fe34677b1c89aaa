"""The book in JupyterLab, as readers open it: real JupyterLab servers on 127.0.0.1 (with a token,
on a free port) driven by Debian's chromium through Playwright.

* `make lab`'s JupyterLab (this venv, one server for every chapter): each chapter opens as a
  notebook by double-click default (jupytext's viewer, configured in the venv), all its cells
  run (real MPI clusters), no traceback, its C excerpts are C code (commbook.lab_contents), its
  explorer responds; in the ring chapter the run panel is used (processes and size set, Run, "your
  run" in the explorer, Stop during a long run with every process of the run gone).
* A site's JupyterLab: a plain venv with only jupyterlab (made here from pip's cache) runs the
  ping-pong notebook of `commbook notebooks` through the kernel of `commbook kernel install`,
  which is removed afterwards.

Every server is stopped with everything it started."""

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chromium
import pytest

from commbook import booktools, config, notebook_code

REPO = Path(__file__).resolve().parents[1]
OVERRIDES = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
SERVER_CONFIG = Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.json"
# Every page by default; COMMBOOK_LAB_CHAPTERS narrows it (CI: every page runs in the book build,
# and the lab run of all of them would take as long again).
CHAPTERS = [
    p.stem
    for p in booktools.chapter_files(REPO)
    if "{code-cell}" in p.read_text(encoding="utf-8")  # a page without code is Markdown, not a notebook
    and p.stem in (config.get("COMMBOOK_LAB_CHAPTERS").split(",") if config.get("COMMBOOK_LAB_CHAPTERS") else [p.stem])
]
RUN_ALL_TIMEOUT_S = 1200  # a chapter's measurements on a loaded 2-core machine

pytestmark = [pytest.mark.browser, pytest.mark.mpi, pytest.mark.timeout(RUN_ALL_TIMEOUT_S + 600)]


def _need(what: str, reason: str):
    if os.environ.get("COMMBOOK_REQUIRE_BROWSER"):
        pytest.fail(f"{what} is required here (COMMBOOK_REQUIRE_BROWSER) but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(base: str, token: str, path: str, method: str = "GET"):
    """One REST call; a server error is asked again for up to 10 s (the kernel list answered 500
    once in CI while the previous chapter's kernel was being shut down)."""
    req = urllib.request.Request(f"{base}{path}", method=method, headers={"Authorization": f"token {token}"})
    deadline = time.monotonic() + 10
    while True:
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                body = r.read()
            return json.loads(body) if body else None
        except urllib.error.HTTPError as e:
            if e.code < 500 or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _alive(pids) -> list[int]:
    import psutil

    left = []
    for p in pids:
        try:
            if psutil.Process(p).status() != psutil.STATUS_ZOMBIE:
                left.append(p)
        except psutil.Error:
            pass
    return left


class Lab:
    """A JupyterLab server: base URL, token, and the pids of everything it started."""

    def __init__(self, base, token, proc):
        self.base, self.token, self.proc, self.started = base, token, proc, set()

    def note_children(self) -> set[int]:
        import psutil

        try:
            now = {p.pid for p in psutil.Process(self.proc.pid).children(recursive=True)}
        except psutil.Error:
            now = set()
        self.started |= now
        return now

    def shutdown_kernels(self) -> None:
        """Kernels shut down politely, so a chapter's atexit stops its MPI cluster; then every
        process they started must be gone."""
        self.note_children()
        with contextlib.suppress(OSError):
            for k in _api(self.base, self.token, "/api/kernels"):
                _api(self.base, self.token, f"/api/kernels/{k['id']}", "DELETE")
        deadline = time.monotonic() + 30
        while _alive(self.started - {self.proc.pid}) and time.monotonic() < deadline:
            self.note_children()
            time.sleep(0.5)
        server_own = self.note_children()  # the server's own helpers (none expected)
        left = [p for p in _alive(self.started) if p not in server_own]
        assert left == [], f"processes the kernels started are still running: {left}"


@contextlib.contextmanager
def lab_server(python: str, root: Path, tmp: Path, env_extra: dict | None = None, path=None):
    """JupyterLab of interpreter `python` on `root`, isolated from ~/.jupyter; always stopped."""
    token, port = secrets.token_hex(16), _free_port()
    # every cell in the DOM (JupyterLab 4 renders only the visible ones by default)
    tracker = tmp / "settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True, exist_ok=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
        "COMMBOOK_MEASUREMENTS": str(tmp / "measurements"),
        "PATH": path or os.pathsep.join([str(Path(python).parent), os.environ["PATH"]]),
        **(env_extra or {}),
    }
    log = open(tmp / "lab.log", "w")
    proc = subprocess.Popen(
        [
            python,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            f"--LabApp.user_settings_dir={tmp / 'settings'}",
            f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
        ]
        + (["--allow-root"] if os.geteuid() == 0 else []),
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=root,
        start_new_session=True,
    )
    lab = Lab(f"http://127.0.0.1:{port}", token, proc)
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                _api(lab.base, token, "/api/status")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(tmp / 'lab.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield lab
    finally:
        with contextlib.suppress(Exception):
            lab.shutdown_kernels()
        lab.note_children()
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()
        deadline = time.monotonic() + 20
        while _alive(lab.started) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _alive(lab.started) == [], "processes the lab server started are still running"


@pytest.fixture(scope="module")
def book_lab(tmp_path_factory):
    """`make lab`'s JupyterLab on a copy of the book (JupyterLab saves what it opens)."""
    if chromium.CHROMIUM is None:
        _need("chromium", "Debian's chromium is not installed (apt-get install chromium)")
    try:
        import jupyterlab  # noqa: F401
        import jupytext  # noqa: F401
    except ImportError:
        _need("JupyterLab", "JupyterLab and jupytext are not in this venv (run `make lab`)")
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "root"
    shutil.copytree(REPO / "book", root / "book")
    shutil.copytree(REPO / "kernels_c", root / "kernels_c")  # the pages' excerpts
    # The node-boundary sections draw the shipped run here: the book build measures the emulated
    # nodes (tests/test_book.py), and a second live run in JupyterLab took about a minute.
    with lab_server(sys.executable, root, tmp, env_extra={"COMMBOOK_NODES_REFERENCE": "1"}) as lab:
        yield lab


TRACEBACKS = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
TRACEBACK_TEXTS = "els => els.map(e => e.innerText).filter(t => t.includes('Traceback'))"

SNAPSHOT = """cell => JSON.stringify([
    [...cell.querySelectorAll('img')].map(i => i.src),
    [...cell.querySelectorAll('svg path')].map(p => p.getAttribute('d')),
    [...cell.querySelectorAll('canvas')].map(c => c.toDataURL()),
    [...cell.querySelectorAll('.jp-OutputArea-output')].map(o => o.innerText)])"""


def _in_browser(fn, *args):
    """Playwright's sync API refuses to start in a thread that already runs one (the book
    test's session browser does): drive this browser from a thread of its own."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(_with_browser, fn, *args).result()


def _with_browser(fn, *args):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = chromium.launch(p)
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.set_default_timeout(60_000)
            return fn(tab, *args)
        finally:
            browser.close()


def open_and_run_all(tab, lab: Lab, path: str, timeout: float = RUN_ALL_TIMEOUT_S) -> float:
    """Open a notebook, Run All Cells, wait for every prompt to hold a number; no traceback.
    Returns the seconds the run took."""
    # reset: no tabs restored from the previous chapter (each would start a kernel)
    tab.goto(f"{lab.base}/lab/tree/{path}?reset&token={lab.token}")
    # opened by the default viewer: a notebook, not the text editor
    tab.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=180_000)
    tab.wait_for_selector(
        ".jp-NotebookPanel-toolbar .jp-Toolbar-kernelStatus, .jp-Notebook-ExecutionIndicator", timeout=180_000
    )
    deadline = time.monotonic() + 300
    while not any(k["execution_state"] == "idle" for k in _api(lab.base, lab.token, "/api/kernels")):
        assert time.monotonic() < deadline, f"{path}: the kernel never became idle"
        time.sleep(1)
    tab.wait_for_timeout(2000)
    t0 = time.monotonic()
    for _ in range(3):  # a click while JupyterLab still settles can be lost: try again
        tab.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        tab.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        with contextlib.suppress(Exception):
            tab.wait_for_function(
                """() => [...document.querySelectorAll(
                '.jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt')].some(
                e => e.innerText.trim() !== '[ ]:')""",
                timeout=60_000,
            )
            break
    lab.note_children()
    deadline = t0 + timeout
    while True:
        prompts = tab.eval_on_selector_all(
            ".jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt", "els => els.map(e => e.innerText.trim())"
        )
        if prompts and all(p[1:-2].strip().isdigit() for p in prompts):
            break
        errors = tab.eval_on_selector_all(TRACEBACKS, TRACEBACK_TEXTS)
        assert errors == [], f"{path}: {errors[0][-2000:]}"
        assert time.monotonic() < deadline, f"{path}: cells still running: {prompts}"
        lab.note_children()
        time.sleep(2)
    errors = tab.eval_on_selector_all(TRACEBACKS, TRACEBACK_TEXTS)
    assert errors == [], f"{path}: {errors[0][-2000:]}"
    return time.monotonic() - t0


def excerpt_first_lines(md: Path) -> list[str]:
    """The first code line of each C excerpt outside solutions (what the notebook must show)."""
    text = booktools.split_solutions(md.read_text())[0]
    out = []
    for inc in notebook_code.literalincludes(text):
        _, _, code = notebook_code.excerpt(inc, md.parent)
        out.append(next(l for l in code.splitlines() if l.strip()).strip())
    return out


def check_excerpts(tab, md: Path) -> None:
    shown = "\n".join(tab.eval_on_selector_all(".jp-MarkdownOutput pre", "els => els.map(e => e.innerText)"))
    markdown = "\n".join(tab.eval_on_selector_all(".jp-MarkdownOutput", "els => els.map(e => e.innerText)"))
    assert "{literalinclude}" not in markdown, f"{md.name}: a directive is shown, not its code"
    for line in excerpt_first_lines(md):
        assert line in shown, f"{md.name}: the excerpt starting {line!r} is not shown as code"


def check_explorer(tab, name: str) -> None:
    """The first explorer control changes its chart."""
    control = tab.locator(".commbook-explorer select, .commbook-explorer input[type=range]").first
    control.wait_for(timeout=60_000)
    cell = control.locator("xpath=ancestor::div[contains(@class,'jp-CodeCell')]")
    before = cell.evaluate(SNAPSHOT)
    if control.evaluate("e => e.tagName") == "SELECT":
        # another option than the one shown (the last may be the default)
        last = control.evaluate("e => e.options.length") - 1
        control.select_option(index=0 if control.evaluate("e => e.selectedIndex") == last else last)
    else:
        control.evaluate("""e => { e.value = e.max; e.dispatchEvent(new Event('input',
            {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); }""")
    deadline = time.monotonic() + 60
    while cell.evaluate(SNAPSHOT) == before:
        assert time.monotonic() < deadline, f"{name}: the explorer did not redraw"
        time.sleep(0.5)


TIMES: dict[str, float] = {}


def _chapter_param(chapter: str):
    """A chapter whose code starts no MPI (the lessons; not intro, which asks mpi_env.detect) is
    `pure`: CI runs it on both cores with the other tests that start no MPI, not in the
    one-at-a-time MPI pass."""
    from commbook.execution.chapters import runs_mpi

    return pytest.param(chapter, marks=[] if runs_mpi(REPO / "book" / f"{chapter}.md") else [pytest.mark.pure])


@pytest.mark.parametrize("chapter", [_chapter_param(c) for c in CHAPTERS])
def test_chapter_runs_in_jupyterlab(book_lab, chapter, tmp_path):
    if chapter == CHAPTERS[0]:
        assert OVERRIDES.is_file(), "run `make lab`: it installs the default-viewer settings"
        assert json.loads(OVERRIDES.read_text()) == json.loads(
            (REPO / "etc" / "jupyterlab" / "overrides.json").read_text()
        )
        assert SERVER_CONFIG.is_file(), "run `make lab`: it installs the contents manager setting"
    md = REPO / "book" / f"{chapter}.md"

    def drive(tab):
        TIMES[chapter] = open_and_run_all(tab, book_lab, f"book/{chapter}.md")
        check_excerpts(tab, md)
        if "explorer(" in md.read_text() and not chapter.endswith("_lab"):
            check_explorer(tab, chapter)  # a lab's explorer is the run panel's: drawn after a run
        if chapter == "ring_lab":
            use_run_panel(tab, book_lab, tmp_path / "ring-panel.png")
        tab.screenshot(path=str(tmp_path / f"{chapter}.png"))

    try:
        _in_browser(drive)
    finally:
        book_lab.shutdown_kernels()
    print(f"{chapter}: all cells in {TIMES.get(chapter, float('nan')):.0f} s")


def _panel_input(panel, label: str):
    return panel.locator(".widget-inline-hbox", has_text=label).locator("input").first


def _cmdline(pid: int) -> str:
    """The command line of `pid`, "" once it has ended (a zombie too: it can turn one between two looks)."""
    import psutil

    try:
        return " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:
        return ""


def _engines(lab: Lab) -> list[int]:
    return [pid for pid in lab.note_children() if "ipyparallel.engine" in _cmdline(pid)]


def _wait_for_status(tab, lab: Lab, status, text: str, timeout_s: float) -> None:
    """Wait for `text` in the panel's status line; on timeout say what the line, the kernels and
    the processes under the server held (a CI-only failure is read from that message)."""
    try:
        tab.wait_for_function(
            f"e => e.innerText.includes({text!r})", arg=status.element_handle(), timeout=timeout_s * 1000
        )
    except Exception as e:
        kernels = [(k["execution_state"], k.get("connections")) for k in _api(lab.base, lab.token, "/api/kernels")]
        procs = [_cmdline(p)[:120] for p in sorted(lab.note_children())]
        raise AssertionError(
            f"{text!r} never came in {timeout_s:.0f} s; status {status.inner_text()!r}; "
            f"kernels {kernels}; processes {procs}"
        ) from e


def use_run_panel(tab, lab: Lab, shot: Path) -> None:
    """Processes and size set in the panel, Run: "your run 1" in the panel's explorer; then a
    long run on three engines, stopped: its processes are gone within seconds."""
    panel = tab.locator(".commbook-run-panel")
    panel.scroll_into_view_if_needed()
    status = panel.locator(".commbook-run-status")
    for label, value in (("processes", "2"), ("message size", "64"), ("repetitions", "1")):
        box = _panel_input(panel, label)
        box.fill(value)
        box.press("Tab")
    # a refused value: one line in the panel, nothing runs
    size = _panel_input(panel, "message size")
    size.fill("1G")
    size.press("Tab")
    panel.locator("button", has_text="Run").click()
    _wait_for_status(tab, lab, status, "is outside", 60)
    size.fill("64")
    size.press("Tab")
    panel.locator("button", has_text="Run").click()
    _wait_for_status(tab, lab, status, "your run 1", 300)
    assert "1 point added" in status.inner_text()
    tab.wait_for_function(
        "e => [...e.querySelectorAll('.commbook-explorer svg text')].some(t => t.textContent.includes('your run 1'))",
        arg=panel.element_handle(),
        timeout=60_000,
    )
    assert panel.locator("img").count() >= 1, "the panel's figure"
    panel.screenshot(path=str(shot))
    # a long run on a cluster of its own (3 engines), stopped while inside MPI
    before = set(_engines(lab))
    running_before = lab.note_children()  # the kernel, the chapter's cluster (it stays)
    for label, value in (("processes", "3"), ("message size", "16M"), ("repetitions", "20")):
        box = _panel_input(panel, label)
        box.fill(value)
        box.press("Tab")
    panel.locator("button", has_text="Run").click()
    deadline = time.monotonic() + 300
    while len(set(_engines(lab)) - before) < 3:
        assert time.monotonic() < deadline, "the panel's 3 engines never started"
        assert "Error" not in status.inner_text(), status.inner_text()
        time.sleep(0.5)
    time.sleep(3)  # the ring is inside MPI now
    run_pids = lab.note_children() - running_before
    assert "your run 2" not in status.inner_text(), "the long run ended before Stop"
    t0 = time.monotonic()
    panel.locator("button", has_text="Stop").click()
    _wait_for_status(tab, lab, status, "Stopped", 60)
    deadline = time.monotonic() + 20
    while _alive(set(_engines(lab)) - before) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _alive(set(_engines(lab)) - before) == [], "engines of the stopped run still live"
    left = [
        p
        for p in _alive(run_pids)
        if any(k in _cmdline(p) for k in ("ipyparallel", "prterun", "prted", "mpiexec", "hydra"))
    ]
    assert left == [], f"processes of the stopped run still live: {left}"
    print(f"ring panel: Stop to nothing left in {time.monotonic() - t0:.1f} s")


# --- a site's JupyterLab with the book's kernel ------------------------------------------------


def _plain_venv(where: Path) -> Path:
    """A venv with only jupyterlab (uv: pip took 100 s to install it on 2 cores, uv a few)."""
    from uv import find_uv_bin

    base = getattr(sys, "_base_executable", None) or shutil.which("python3")
    uv = find_uv_bin()
    subprocess.run([uv, "venv", "--quiet", "--python", base, str(where)], check=True, timeout=300)
    py = where / "bin" / "python"
    out = subprocess.run(
        [uv, "pip", "install", "--quiet", "--python", str(py), "jupyterlab>=4,<5"],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if out.returncode:
        pytest.fail(f"uv could not install jupyterlab into a plain venv:\n{out.stderr[-2000:]}")
    return py


@pytest.mark.pure  # ping-pong's lesson runs no MPI (its lab does): CI runs this on both cores
def test_plain_jupyterlab_runs_pingpong_through_the_installed_kernel(tmp_path):
    if chromium.CHROMIUM is None:
        _need("chromium", "Debian's chromium is not installed (apt-get install chromium)")
    t0 = time.monotonic()
    plain = _plain_venv(tmp_path / "plain")
    venv_seconds = time.monotonic() - t0
    probe = subprocess.run([str(plain), "-c", "import commbook"], capture_output=True)
    assert probe.returncode != 0, "the plain venv must not see the package"
    data = tmp_path / "jupyter-data"
    ours = Path(sys.executable).parent
    # the site's PATH: without this venv, so only the kernelspec can lead to mpiexec
    site_path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if Path(p).resolve() != ours.resolve())
    env = {**os.environ, "JUPYTER_DATA_DIR": str(data)}
    commbook = [sys.executable, "-m", "commbook.cli"]
    subprocess.run(commbook + ["kernel", "install", "--user"], env=env, check=True, timeout=120)
    try:
        root = tmp_path / "root"
        subprocess.run(commbook + ["notebooks", "--out", str(root)], env=env, check=True, timeout=300)
        with lab_server(
            str(plain), root, tmp_path / "lab", {"JUPYTER_DATA_DIR": str(data), "JUPYTER_PATH": ""}, path=site_path
        ) as lab:
            specs = _api(lab.base, lab.token, "/api/kernelspecs")["kernelspecs"]
            assert "commbook" in specs, sorted(specs)

            def drive(tab):
                seconds = open_and_run_all(tab, lab, "pingpong.ipynb")
                kernel = tab.locator(".jp-NotebookPanel-toolbar").first.inner_text()
                assert "commbook" in kernel, kernel
                check_excerpts(tab, REPO / "book" / "pingpong.md")
                check_explorer(tab, "pingpong")
                figures = tab.eval_on_selector_all(
                    ".jp-OutputArea-output img, .jp-OutputArea-output svg.marks", "els => els.length"
                )
                assert figures >= 6, f"only {figures} figures in the outputs"
                tab.screenshot(path=str(tmp_path / "plain-lab.png"))
                return seconds

            seconds = _in_browser(drive)
            lab.shutdown_kernels()
    finally:
        subprocess.run(commbook + ["kernel", "remove"], env=env, check=True, timeout=120)
    assert not (data / "kernels" / "commbook").exists(), "the kernel was not removed"
    print(f"plain venv in {venv_seconds:.0f} s; ping-pong through the kernel in {seconds:.0f} s")
