"""The book in JupyterLab, as `make lab` sets it up: a real JupyterLab server on 127.0.0.1 (with
a token, on a free port) driven by Debian's chromium through Playwright. The ping-pong chapter
opens as a notebook by double-click default (jupytext's viewer, configured in the venv), all its
cells run (a real MPI cluster), figures appear and an explorer responds; then the server is
stopped with everything it started."""
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
OVERRIDES = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
CHAPTER = "book/pingpong.md"
RUN_ALL_TIMEOUT_S = 900   # the chapter's sweeps on a loaded 2-core machine

pytestmark = [pytest.mark.browser, pytest.mark.mpi, pytest.mark.timeout(RUN_ALL_TIMEOUT_S + 300)]


def _need(what: str, reason: str):
    if os.environ.get("COMMBOOK_REQUIRE_BROWSER"):
        pytest.fail(f"{what} is required here (COMMBOOK_REQUIRE_BROWSER) but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(base: str, token: str, path: str, method: str = "GET"):
    req = urllib.request.Request(f"{base}{path}", method=method,
                                 headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        body = r.read()
    return json.loads(body) if body else None


@pytest.fixture
def lab_server(tmp_path):
    """A JupyterLab server on a copy of book/, isolated from ~/.jupyter; always stopped."""
    if CHROMIUM is None:
        _need("chromium", "Debian's chromium is not installed (apt-get install chromium)")
    try:
        import jupyterlab  # noqa: F401
        import jupytext  # noqa: F401
    except ImportError:
        _need("JupyterLab", "JupyterLab and jupytext are not in this venv (run `make lab`)")
    import psutil

    token, port = secrets.token_hex(16), _free_port()
    # A copy of the chapters: JupyterLab saves what it opens (jupytext rewrites the header)
    root = tmp_path / "root"
    shutil.copytree(REPO / "book", root / "book")
    # every cell in the DOM (JupyterLab 4 renders only the visible ones by default)
    tracker = tmp_path / "settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "COMMBOOK_MEASUREMENTS": str(tmp_path / "measurements"),
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         f"--LabApp.user_settings_dir={tmp_path / 'settings'}",
         f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}"]
        + (["--allow-root"] if os.geteuid() == 0 else []),
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    started = set()
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                _api(base, token, "/api/status")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(tmp_path / 'lab.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield base, token, lambda: started.update(
            p.pid for p in psutil.Process(proc.pid).children(recursive=True))
    finally:
        try:  # kernels shut down politely, so a chapter's atexit stops its MPI cluster
            for k in _api(base, token, "/api/kernels"):
                _api(base, token, f"/api/kernels/{k['id']}", "DELETE")
        except OSError:
            pass
        started |= {p.pid for p in psutil.Process(proc.pid).children(recursive=True)} \
            if proc.poll() is None else set()
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()
        deadline = time.monotonic() + 20
        while [p for p in started if psutil.pid_exists(p) and
               psutil.Process(p).status() != psutil.STATUS_ZOMBIE] and time.monotonic() < deadline:
            time.sleep(0.5)
        left = [p for p in started if psutil.pid_exists(p)
                and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        assert left == [], f"processes the lab server started are still running: {left}"


TRACEBACKS = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
TRACEBACK_TEXTS = "els => els.map(e => e.innerText).filter(t => t.includes('Traceback'))"

SNAPSHOT = """cell => JSON.stringify([
    [...cell.querySelectorAll('img')].map(i => i.src),
    [...cell.querySelectorAll('svg path')].map(p => p.getAttribute('d')),
    [...cell.querySelectorAll('canvas')].map(c => c.toDataURL()),
    [...cell.querySelectorAll('.jp-OutputArea-output')].map(o => o.innerText)])"""


def test_pingpong_chapter_runs_in_jupyterlab(lab_server, tmp_path):
    base, token, note_children = lab_server
    assert OVERRIDES.is_file(), "run `make lab`: it installs the default-viewer settings"
    assert json.loads(OVERRIDES.read_text()) == json.loads(
        (REPO / "etc" / "jupyterlab" / "overrides.json").read_text())
    # Playwright's sync API refuses to start in a thread that already runs one (the book
    # test's session browser does): drive this browser from a thread of its own.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(drive_lab, base, token, note_children, tmp_path).result()


def drive_lab(base, token, note_children, tmp_path):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.set_default_timeout(60_000)
            tab.goto(f"{base}/lab/tree/{CHAPTER}?token={token}")
            # opened by the default viewer: a notebook, not the text editor
            tab.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
            tab.wait_for_timeout(3000)
            n_code = tab.locator(".jp-NotebookPanel .jp-CodeCell").count()
            assert n_code >= 15, n_code
            tab.wait_for_selector(".jp-NotebookPanel-toolbar .jp-Toolbar-kernelStatus, "
                                  ".jp-Notebook-ExecutionIndicator", timeout=120_000)
            tab.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            tab.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
            note_children()
            # every code cell executed: a number in each prompt, none still [*]
            deadline = time.monotonic() + RUN_ALL_TIMEOUT_S
            while True:
                prompts = tab.eval_on_selector_all(
                    ".jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt",
                    "els => els.map(e => e.innerText.trim())")
                if prompts and all(p[1:-2].strip().isdigit() for p in prompts):
                    break
                errors = tab.eval_on_selector_all(TRACEBACKS, TRACEBACK_TEXTS)
                assert errors == [], errors[0][-2000:]
                assert time.monotonic() < deadline, f"cells still running: {prompts}"
                note_children()
                time.sleep(2)
            tab.screenshot(path=str(tmp_path / "lab.png"))
            figures = tab.eval_on_selector_all(
                ".jp-OutputArea-output img, .jp-OutputArea-output canvas, "
                ".jp-OutputArea-output svg.marks", "els => els.length")
            assert figures >= 6, f"only {figures} figures in the outputs"
            # an explorer: the first control in an output area changes that cell's output
            control = tab.locator(".jp-OutputArea-output select, "
                                  ".jp-OutputArea-output input[type=range]").first
            control.wait_for(timeout=60_000)
            cell = control.locator("xpath=ancestor::div[contains(@class,'jp-CodeCell')]")
            before = cell.evaluate(SNAPSHOT)
            if control.evaluate("e => e.tagName") == "SELECT":
                control.select_option(index=control.evaluate("e => e.options.length") - 1)
            else:
                control.evaluate("""e => { e.value = e.max; e.dispatchEvent(new Event('input',
                    {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); }""")
            deadline = time.monotonic() + 60
            while cell.evaluate(SNAPSHOT) == before:
                assert time.monotonic() < deadline, "the explorer did not redraw"
                time.sleep(0.5)
            tab.screenshot(path=str(tmp_path / "lab-explorer.png"))
        finally:
            browser.close()
