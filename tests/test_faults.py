"""Fault injection: every way a run can end leaves no process behind and says so in one line.

Each test starts the owning process (the `commbook` command, or a Python script holding an
MPICluster, as a notebook kernel would) in a subprocess, watches its process tree while it runs
(recording every descendant with its start time: Open MPI's ranks leave the tree when their
launcher dies, so they are recorded while they are still in it), injects the fault, and then
checks the exit status, the message and that none of the recorded processes is still alive.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from commbook.kernels import RETRY_NOTICE
from commbook.process_tree import living

pytestmark = pytest.mark.mpi


def ring_command(iterations: int, repetitions: int) -> list[str]:
    """`commbook measure ring` on 2 ranks, quiet, as long as the test needs it."""
    options = {"--np": 2, "--size": 4, "--iterations": iterations, "--repetitions": repetitions}
    return ["measure", "ring", *(str(x) for kv in options.items() for x in kv), "--quiet"]


LONG_RING = ring_command(100_000_000, 1000)


def _default_sigint():
    """In the child before exec: SIGINT as a terminal delivers it. Under nohup or in a background
    job this process inherited SIGINT ignored, an ignored signal stays ignored across exec, and
    Python then installs no KeyboardInterrupt handler: the Ctrl-C tests would test nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Watched:
    """A subprocess and every process ever seen below it."""

    def __init__(self, argv, env=None):
        from commbook.process_tree import segments_now

        self.segments_before = segments_now()  # the MPI shared-memory files before the run
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            preexec_fn=_default_sigint,
        )
        self.seen: dict[tuple[int, float], psutil.Process] = {}
        self.root = psutil.Process(self.proc.pid)
        self.out: list[str] = []
        self.err: list[str] = []
        self.readers = [
            threading.Thread(target=lambda s=s, sink=k: sink.extend(s), daemon=True)
            for s, k in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))
        ]
        for t in self.readers:
            t.start()

    def said(self, prefix) -> str | None:
        return next((line for line in list(self.out) if line.startswith(prefix)), None)

    def poll_tree(self):
        try:
            for p in self.root.children(recursive=True):
                try:
                    self.seen.setdefault((p.pid, p.create_time()), p)
                except psutil.Error:
                    pass
        except psutil.Error:
            pass

    def wait_for(self, condition, timeout=120.0):
        """Poll the tree until condition(processes seen and alive) holds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.poll_tree()
            if condition(self.alive()):
                return
            if self.proc.poll() is not None:
                pytest.fail(f"owner ended early ({self.proc.returncode}):\n{''.join(self.out)}\n{''.join(self.err)}")
            time.sleep(0.2)
        pytest.fail("the run never got going")

    def alive(self) -> list[psutil.Process]:
        return living(self.seen.values())

    def finish(self, timeout=60.0) -> tuple[int, str, str]:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self.poll_tree()
            time.sleep(0.2)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"owner did not end within {timeout} s:\n{''.join(self.err)}")
        for t in self.readers:
            t.join(10)
        return self.proc.returncode, "".join(self.out), "".join(self.err)

    def leftovers(self, grace=10.0) -> list[str]:
        """Processes of the run still alive after a grace period (then killed: ours), and the MPI
        shared-memory files it left in /dev/shm (a killed rank never unlinks its own)."""
        from commbook.process_tree import segments_now

        deadline = time.monotonic() + grace
        while (self.alive() or segments_now() - self.segments_before) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [f"file {f}" for f in sorted(segments_now() - self.segments_before)]
        for p in self.alive():
            try:
                left.append(f"{p.pid} {' '.join(p.cmdline())[:120]}")
                p.kill()
            except psutil.Error:
                pass
        return left


def said_lines(err: str) -> list[str]:
    """stderr's lines but the notice of a launcher started once more (Open MPI's PMIx flake)."""
    return [line for line in err.strip().splitlines() if not line.startswith(RETRY_NOTICE)]


def commbook(*args) -> list[str]:
    return [sys.executable, "-m", "commbook.cli", *args]


def ranks(name):
    return lambda procs: sum(1 for p in procs if _name(p).startswith(name)) >= 2


def _name(p):
    try:
        return p.name()
    except psutil.Error:
        return ""


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_children_answer_ctrl_c_whatever_this_process_inherited():
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as under nohup
    try:
        w = Watched([sys.executable, "-c", "import sys, time; print('up', flush=True); time.sleep(60)"])
    finally:
        signal.signal(signal.SIGINT, before)
    w.wait_for(lambda procs: w.said("up") is not None, timeout=30)
    w.proc.send_signal(signal.SIGINT)
    rc, _, err = w.finish(timeout=30)
    assert rc == -signal.SIGINT and "KeyboardInterrupt" in err


# --------------------------------------------------------------- commbook measure (mpiexec)


def test_measure_success_leaves_nothing(tmp_path):
    # long enough (about 2 s here) to see the ranks: a run of 8 bytes once could end unseen
    w = Watched(commbook(*ring_command(500_000, 1), "--out", str(tmp_path / "ring.csv")))
    w.wait_for(ranks("ring-"))
    rc, out, err = w.finish()
    assert rc == 0, err
    assert len(w.seen) >= 3  # mpiexec and two ranks were seen
    assert (tmp_path / "ring.csv").exists()
    assert w.leftovers() == []


def test_measure_timeout_kills_every_rank():
    w = Watched(commbook(*LONG_RING, "--timeout", "4"))
    w.wait_for(ranks("ring-"))
    rc, out, err = w.finish()
    assert rc == 1
    lines = said_lines(err)
    assert len(lines) == 1 and lines[0].startswith("commbook: error: ") and "did not finish in 4 s" in lines[0]
    assert w.leftovers() == []


@pytest.mark.parametrize(
    "sig, status, said",
    [
        (signal.SIGINT, 130, "commbook: interrupted"),
        # told to stop (a scheduler, a closed terminal): the job killed, the rows kept, one line
        (signal.SIGTERM, 128 + signal.SIGTERM, "commbook: error: ring: stopped by SIGTERM during the run; "),
        (signal.SIGHUP, 128 + signal.SIGHUP, "commbook: error: ring: stopped by SIGHUP during the run; "),
        (signal.SIGKILL, -signal.SIGKILL, None),  # the OOM killer: no word, the watchdog cleans up
    ],
)
def test_measure_signal_kills_every_rank(sig, status, said):
    w = Watched(commbook(*LONG_RING, "--timeout", "300"))
    w.wait_for(ranks("ring-"))
    w.proc.send_signal(sig)
    rc, out, err = w.finish()
    assert rc == status, err
    if said:
        lines = said_lines(err)
        assert len(lines) == 1 and lines[0].startswith(said), err
    assert w.leftovers() == []


def test_measure_rank_crash_is_one_error_and_kills_the_rest():
    w = Watched(commbook(*LONG_RING, "--timeout", "300"))
    w.wait_for(ranks("ring-"))
    victim = next(p for p in w.alive() if _name(p).startswith("ring-"))
    victim.kill()
    rc, out, err = w.finish()
    assert rc == 1
    assert said_lines(err)[0].startswith("commbook: error: kernel ring failed")
    assert "Traceback" not in err
    assert w.leftovers() == []


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_output_path_checked_before_the_run(tmp_path, capsys):
    from commbook.cli import main

    blocker = tmp_path / "file"
    blocker.write_text("x")
    t0 = time.monotonic()
    assert main([*LONG_RING, "--out", str(blocker / "out.csv")]) == 2
    assert main([*LONG_RING, "--out", str(tmp_path)]) == 2
    assert time.monotonic() - t0 < 10  # refused at once, nothing ran
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"commbook: error: --out {blocker / 'out.csv'}: {blocker} is a file, not a directory",
        f"commbook: error: --out {tmp_path}: is a directory; give a file name",
    ]


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_read_only_output_directory_refused_before_the_run(tmp_path, capsys):
    from commbook.cli import main

    if os.geteuid() == 0:  # root writes into any mode-0500 folder: use sysfs, read-only for all
        if not os.path.isdir("/sys/kernel"):
            pytest.skip("running as root without /sys: no read-only folder to try")
        ro = Path("/sys")
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
    try:
        assert main([*LONG_RING, "--out", str(ro / "commbook-out.csv")]) == 2
    finally:
        if ro != Path("/sys"):
            ro.chmod(0o700)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"cannot write in {ro}" in err[0]


def test_write_failure_after_the_run_keeps_the_results(tmp_path, capsys, monkeypatch):
    from commbook import data
    from commbook.cli import main

    wanted = tmp_path / "pp.csv"
    real = data.atomic_write_text

    def disk_full_for_wanted(path, text):
        if str(path) == str(wanted):
            raise OSError(28, "No space left on device")
        return real(path, text)

    monkeypatch.setattr(data, "atomic_write_text", disk_full_for_wanted)
    rc = main(
        ["measure", "pingpong", "--np", "2", "--sizes", "0:64", "--repetitions", "1", "--quiet", "--out", str(wanted)]
    )
    assert rc == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left on device" in err[0]
    kept = err[0].rsplit("kept in ", 1)[1]
    assert kept.startswith(str(tmp_path)) and not wanted.exists()
    assert len(data.read_measurements(kept).table) == 8


# --------------------------------------------------------------- an MPICluster's owner

OWNER = textwrap.dedent("""
    import sys, time
    from commbook.cluster import MPICluster
    from commbook import kernels
    cluster = MPICluster(n=2)
    cluster.start()
    print("engines", *cluster._engine_pids, flush=True)
    try:
        cluster.run("examples/deadlock", timeout=float(sys.argv[1]))
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    except kernels.KernelError as e:
        print("failed:", e, flush=True)
    print("second run ok:", cluster.run("pingpong", {"sizes": "8:8", "repetitions": 1}).ok, flush=True)
    cluster.stop()
""")


def cluster_owner(tmp_path, timeout=300):
    return Watched([sys.executable, "-c", OWNER, str(timeout)], env={"IPYTHONDIR": str(tmp_path / "ipython")})


def started(w):
    """The cluster is up and its first run (a deadlock) has had time to begin."""
    w.wait_for(lambda procs: w.said("engines") is not None, timeout=240)  # two tries of 60 and 120 s
    time.sleep(3)
    w.poll_tree()


@pytest.mark.one_family
@pytest.mark.parametrize("sig", [signal.SIGTERM])  # SIGHUP: the same handler, tested above
def test_owner_terminated_stops_the_whole_cluster(tmp_path, sig):
    """What a Jupyter kernel shutdown sends when the kernel does not exit by itself (SIGTERM);
    SIGKILL (the tree's watchdog cleans up) is the kernel restart test's now=True."""
    w = cluster_owner(tmp_path)
    started(w)
    w.proc.send_signal(sig)
    rc, out, err = w.finish()
    assert rc == -sig
    if sig != signal.SIGKILL:
        assert f"commbook: {signal.Signals(sig).name} received" in err
    assert len(w.seen) >= 4  # controller, mpiexec, two engines
    assert w.leftovers() == []


def test_ctrl_c_kills_the_cluster_and_the_next_run_restarts_it(tmp_path):
    w = cluster_owner(tmp_path)
    started(w)
    first = [p for p in w.alive()]
    w.proc.send_signal(signal.SIGINT)
    rc, out, err = w.finish(timeout=180)
    assert rc == 0, err
    assert "interrupted" in out and "second run ok: True" in out
    assert "starting a new MPI cluster (2 engines) after the last run was interrupted" in err
    assert not living(first)
    assert w.leftovers() == []


def test_engine_crash_fails_that_run_and_the_next_restarts(tmp_path):
    w = cluster_owner(tmp_path)
    started(w)
    engine_pid = int(w.said("engines").split()[1])
    psutil.Process(engine_pid).kill()
    rc, out, err = w.finish(timeout=180)
    assert rc == 0, err
    failed = [line for line in out.splitlines() if line.startswith("failed:")]
    assert len(failed) == 1 and "an MPI engine died during the run" in failed[0]
    assert "second run ok: True" in out
    assert "after the last run lost an engine" in err
    assert w.leftovers() == []


@pytest.mark.one_family
def test_local_cluster_listens_on_loopback_only(tmp_path, monkeypatch):
    """Every listening socket of the cluster's processes is on 127.0.0.1 or ::1.

    Exception: the launchers' control listeners, which no setting moves off the wildcard address
    (see mpi_env): Open MPI 5's prterun, MPICH's Hydra (mpiexec, hydra_pmi_proxy), and that same
    socket as the ranks inherit it."""
    from commbook.cluster import MPICluster

    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    launchers = ("prterun", "mpiexec", "mpiexec.hydra", "hydra_pmi_proxy")
    with MPICluster(n=2) as cluster:
        procs, launcher_ports, wide = [], set(), []
        for pid in cluster.pids():
            try:
                proc = psutil.Process(pid)
                listening = [c.laddr for c in proc.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
            except psutil.Error:
                continue
            if proc.name() in launchers:
                launcher_ports |= {a.port for a in listening}
            else:
                procs.append((proc.name(), listening))
        for name, listening in procs:
            wide += [
                f"{name} {a.ip}:{a.port}"
                for a in listening
                if a.ip not in ("127.0.0.1", "::1") and a.port not in launcher_ports
            ]
        assert len(cluster.pids()) >= 4
    assert wide == []


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_written_files_follow_the_umask(tmp_path):
    from commbook import data

    old = os.umask(0o027)
    try:
        data.atomic_write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640


@pytest.mark.one_family
@pytest.mark.parametrize("now", [False, True])
def test_jupyter_kernel_restart_stops_the_cluster(tmp_path, now):
    """The notebook case: a kernel holding a cluster is restarted (now=True: killed at once)."""
    jupyter_client = pytest.importorskip("jupyter_client")
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(env={**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")})
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        reply = kc.execute_interactive(
            "from commbook.cluster import MPICluster\ncluster = MPICluster(n=2).start()", timeout=180
        )
        assert reply["content"]["status"] == "ok"
        seen = psutil.Process(km.provisioner.process.pid).children(recursive=True)
        assert len(seen) >= 4  # controller, mpiexec, two engines (and the tree's watchdog)
        km.restart_kernel(now=now)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and living(seen):
            time.sleep(0.2)
        left = living(seen)
        for p in left:
            p.kill()
        assert left == []
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@pytest.mark.openmpi_only  # MPICH unlinks its segment once every rank has mapped it: nothing to leave
def test_killed_engines_leave_no_shared_memory_segment():
    """Engines killed rather than finalised (a hung run, Ctrl-C, a crash) never run the
    MPI_Finalize that removes their /dev/shm segments: the cluster's kill removes the ones its
    processes mapped, once nobody maps them."""
    from commbook import process_tree
    from commbook.cluster import MPICluster

    cluster = MPICluster(n=2).start()
    try:
        assert cluster.run("pingpong", {"sizes": "8:8", "repetitions": 1}).ok
        engines = [psutil.Process(p) for p in cluster._engine_pids if process_tree.is_alive(p)]
        segments = process_tree.mapped_segments(engines)
    finally:
        cluster._force_stop()  # SIGKILL, no shutdown first
    assert segments, "Open MPI's ranks map their sm_segment in /dev/shm while they run"
    assert [s for s in segments if os.path.exists(s)] == []
