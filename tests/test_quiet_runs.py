"""A run that measures stops the book build's background work while it runs (commbook.quiet_runs)."""

import os
import subprocess
import sys
import time

import pytest

from commbook import quiet_runs

TICKER = "import sys, time\nwhile True:\n    print(time.time(), flush=True)\n    time.sleep(0.01)\n"


@pytest.fixture
def ticker(tmp_path):
    """A background process (and a child of it) that write the time every 10 ms."""
    out = tmp_path / "ticks"
    code = (
        f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', {TICKER!r}], stdout=open({str(out) + '2'!r}, 'w'))\n"
        + TICKER
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=out.open("w"))
    time.sleep(0.5)
    yield proc, out
    import psutil

    for p in [*psutil.Process(proc.pid).children(recursive=True), psutil.Process(proc.pid)]:
        p.kill()
    proc.wait()


def _last_tick(path):
    lines = path.read_text().split()
    return float(lines[-1]) if lines else 0.0


def test_a_measurement_stops_the_background_and_its_end_lets_it_go_on(tmp_path, monkeypatch, ticker):
    """Stopped while runs measure, across a sweep's runs that follow closely (one pause), going
    on `linger` s after the last; the measuring process itself (here named among the roots) is
    never stopped."""
    proc, out = ticker
    folder = tmp_path / "quiet"
    pauser = quiet_runs.Pauser(folder, lambda: [os.getpid(), proc.pid], linger=0.3)
    monkeypatch.setenv("COMMBOOK_QUIET_RUNS", str(folder))
    try:
        with quiet_runs.measuring():
            time.sleep(0.2)  # the pauser sees the run within 20 ms
            t0 = time.time()
            time.sleep(0.3)
            assert list(folder.iterdir())
        time.sleep(0.1)  # the sweep's next run
        with quiet_runs.measuring():
            time.sleep(0.2)
        assert not list(folder.iterdir())
        assert _last_tick(out) < t0 and _last_tick(tmp_path / "ticks2") < t0  # both stood still
        time.sleep(0.6)
        assert _last_tick(out) > t0 + 0.6 and _last_tick(tmp_path / "ticks2") > t0 + 0.6  # going on again
        assert pauser.pauses == 1
    finally:
        pauser.close()


def _ticks_between(path, t0, t1):
    return [t for t in map(float, path.read_text().split()) if t0 <= t <= t1]


def test_a_long_measurement_lets_the_background_breathe(tmp_path, monkeypatch, ticker):
    """Stopped at most `longest` s at a time, then going on for `breather` s, then stopped again:
    a background process's own time limits run while it stands still."""
    proc, out = ticker
    folder = tmp_path / "quiet"
    pauser = quiet_runs.Pauser(folder, lambda: [proc.pid], linger=0.3, longest=0.6, breather=0.4)
    monkeypatch.setenv("COMMBOOK_QUIET_RUNS", str(folder))
    try:
        with quiet_runs.measuring():
            t0 = time.time()
            time.sleep(2.0)
        ticks = _ticks_between(out, t0 + 0.1, t0 + 2.0)
        assert ticks, "never went on during a 2 s measurement"
        gaps = [b - a for a, b in zip([t0, *ticks], [*ticks, t0 + 2.0])]
        assert max(gaps) < 1.0  # no stop longer than longest (+ the polling)
        assert any(g > 0.4 for g in gaps)  # but stopped between breaths
        assert pauser.pauses >= 2
    finally:
        pauser.close()


def test_a_run_that_died_does_not_leave_the_background_stopped(tmp_path, ticker):
    proc, out = ticker
    folder = tmp_path / "quiet"
    folder.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (folder / f"{dead.stdout.strip()}-1-1-0").touch()  # the flag of a run whose process is gone
    (folder / f"{os.getpid()}-1-1-0").touch()  # a live process with that pid, started at another time
    pauser = quiet_runs.Pauser(folder, lambda: [proc.pid])
    try:
        time.sleep(0.4)
        assert not list(folder.iterdir()) and pauser.pauses == 0
        assert _last_tick(out) > time.time() - 0.2
    finally:
        pauser.close()


def test_outside_a_build_measuring_does_nothing(monkeypatch, tmp_path):
    monkeypatch.delenv("COMMBOOK_QUIET_RUNS", raising=False)
    with quiet_runs.measuring():
        pass
    monkeypatch.setenv("COMMBOOK_QUIET_RUNS", str(tmp_path / "gone"))  # the build's folder removed
    with quiet_runs.measuring():
        pass
