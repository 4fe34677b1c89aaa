"""The ipyparallel MPI cluster: kernels through ctypes on every engine, timeouts, clean stop."""

import sys
import time

import psutil
import pytest

from commbook import cluster as cluster_module
from commbook import kernels
from commbook.cluster import MPICluster
from commbook.process_tree import is_alive

pytestmark = pytest.mark.mpi


def test_kernel_runs_on_engines_with_their_communicator(mpi_cluster):
    out = mpi_cluster.run("pingpong", {"sizes": "0:1K", "repetitions": 3, "iterations": 50})
    assert out.ok and out.meta["np"] == 2
    assert out.meta["peers"] == "rank 0 and rank 1"
    assert len(out.table) == 12


def test_a_run_on_the_engines_pauses_a_book_builds_background(mpi_cluster, tmp_path, monkeypatch):
    """The engines' run marks itself measuring (commbook.quiet_runs) while it waits for them."""
    monkeypatch.setenv("COMMBOOK_QUIET_RUNS", str(tmp_path))
    flags = []
    wait = MPICluster._wait

    def watched(self, *args):
        flags.append(len(list(tmp_path.iterdir())))
        return wait(self, *args)

    monkeypatch.setattr(MPICluster, "_wait", watched)
    assert mpi_cluster.run("pingpong", {"sizes": "0:1K", "repetitions": 3}).ok
    assert flags == [1] and not list(tmp_path.iterdir())


def test_validation_failure_on_engines(mpi_cluster):
    with pytest.raises(kernels.ValidationFailed):
        mpi_cluster.run("pingpong", {"sizes": "4:4", "inject-error": 1})
    # the engines are still usable afterwards
    assert mpi_cluster.run("pingpong", {"sizes": "8:8", "repetitions": 1}).ok


def test_sweep_gives_one_output_per_value(mpi_cluster):
    outs = mpi_cluster.sweep("pingpong", ["0:0", "1K:1K"], "sizes", {"repetitions": 2})
    tidy = kernels.tidy_all(outs, machine="test")
    assert list(tidy["size_bytes"]) == [0, 1024]


@pytest.mark.one_family
def test_timeout_kills_engines_and_next_run_restarts():
    cluster = MPICluster(n=2)
    try:
        cluster.start()
        hung = cluster.pids()
        with pytest.raises(kernels.KernelTimeout, match="engines were killed"):
            cluster.run("examples/deadlock", timeout=4)
        assert not cluster.running
        assert cluster.run("pingpong", {"sizes": "8:8", "repetitions": 1}).ok
        assert cluster.running
        second = cluster.pids()
    finally:
        cluster.stop()
    time.sleep(2)
    assert hung and second
    assert [p for p in hung + second if is_alive(p)] == []


@pytest.mark.one_family
def test_context_manager_always_stops():
    with pytest.raises(RuntimeError, match="boom"):
        with MPICluster(n=2) as cluster:
            assert cluster.running
            pids = cluster.pids()
            raise RuntimeError("boom")
    assert not cluster.running
    time.sleep(2)
    assert len(pids) >= 4  # controller, mpiexec, two engines (and their helpers)
    assert [p for p in pids if is_alive(p)] == []


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_refuses_zero_engines():
    with pytest.raises(ValueError, match="at least one engine"):
        MPICluster(n=0)


def test_engines_dying_at_start_are_tried_twice_then_reported_with_their_words(monkeypatch, capfd):
    from traitlets import List

    real = cluster_module._mpi_engines_keeping_output()

    class GivingUp(real):
        engine_cmd = List([sys.executable, "-c", "print('engine gave up at start', flush=True); raise SystemExit(3)"])

    monkeypatch.setattr(cluster_module, "_mpi_engines_keeping_output", lambda: GivingUp)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    cluster = MPICluster(n=2)
    with pytest.raises(kernels.KernelError) as failed:
        cluster.start()
    message = str(failed.value)
    assert message.startswith("could not start 2 MPI engines (mpi): ")
    assert "engine gave up at start" in message  # mpiexec's output, kept past ipyparallel's cleanup
    assert "did not start" in capfd.readouterr().err  # the first try, then once more
    assert not cluster.running
    time.sleep(2)
    left = [p for p in psutil.Process().children(recursive=True) if p.pid not in before and is_alive(p.pid)]
    assert left == []


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_progress_bar_is_tqdm_in_one_line(capsys):
    """Outside Jupyter tqdm writes to stderr; in Jupyter each state replaces the last in one
    display output (so the executed notebook keeps only the final bar)."""
    bar = cluster_module._ProgressBar(3, "Allreduce sizes")
    for done, value in enumerate(["0:0", "1K:1K", "1M:1M"], start=1):
        bar.update(done, value)
    assert "Allreduce sizes: 100%" in capsys.readouterr().err and "3/3" in bar.bar.__str__()

    shown = []

    class Handle:
        def update(self, data, raw):
            shown.append(data["text/plain"])

    bar.handle = Handle()
    bar.write("\r\x1b[AAllreduce sizes:  33%|###   | 1/3 [00:01<00:02, last: 0:0]")
    bar.write("\n")
    assert shown == ["Allreduce sizes:  33%|###   | 1/3 [00:01<00:02, last: 0:0]"]
