"""The cluster login node, for real: a single-node Slurm (tests/slurm_fixture.py) places the
ipyparallel engines and runs the book's batch job. Each test bounded by a timeout; every job is
cancelled and squeue checked empty after each test, the daemons stopped after the session."""

import shutil
import socket
import time
from pathlib import Path

import pytest
from slurm_fixture import LocalSlurm

from commbook import data, kernels, mpi_env, scheduler
from commbook.cli import main as commbook
from commbook.cluster import MPICluster
from commbook.process_tree import is_alive

pytestmark = [pytest.mark.mpi, pytest.mark.slurm, pytest.mark.timeout(300)]

JOB_SCRIPT = Path("book") / "scripts" / "pingpong.sbatch"


@pytest.fixture
def slurm_engines(slurm, monkeypatch, tmp_path):
    """COMMBOOK_ENGINES=slurm, run from a scratch directory, job environment with this venv."""
    monkeypatch.setenv("COMMBOOK_ENGINES", "slurm")
    monkeypatch.setenv("PATH", mpi_env.bin_path())
    monkeypatch.chdir(tmp_path)
    return slurm


def engine_jobs(slurm) -> list[str]:
    return [j for j in slurm.jobs() if "ipengine" in j]


def wait_until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.3)
    return True


def test_engines_through_slurm_share_one_world_and_run_a_kernel(slurm_engines):
    with MPICluster(n=2, start_timeout=120) as cluster:
        jobs = engine_jobs(slurm_engines)
        assert len(jobs) == 1 and " RUNNING " in f" {jobs[0]} ", jobs
        assert sorted(cluster._ranks.values()) == [0, 1]
        out = cluster.run("pingpong", {"sizes": "0:1K", "repetitions": 3}, timeout=120)
        pids = cluster.pids()
    assert out.ok and out.meta["np"] == 2 and out.meta["peers"] == "rank 0 and rank 1"
    assert len(out.table) == 12
    assert wait_until(lambda: not engine_jobs(slurm_engines), 30), slurm_engines.jobs()
    assert wait_until(lambda: not [p for p in pids if is_alive(p)], 10)


@pytest.mark.one_family
def test_slurm_options_reach_the_engines_job(slurm_engines, monkeypatch):
    # three engines on two CPUs only start if --overcommit reaches the job script
    monkeypatch.setenv("COMMBOOK_SLURM_OPTIONS", "--overcommit --comment=commbook-test")
    monkeypatch.setenv("COMMBOOK_SLURM_TIME", "00:10:00")
    with MPICluster(n=3, start_timeout=120) as cluster:
        job = engine_jobs(slurm_engines)[0].split()[0]
        shown = slurm_engines.cmd("scontrol", "show", "-o", "job", job).stdout
        out = cluster.run("ring", {"size": 4, "repetitions": 2}, timeout=120)
    assert "Comment=commbook-test" in shown and "TimeLimit=00:10:00" in shown
    assert out.ok and out.meta["np"] == 3


@pytest.mark.one_family
def test_hung_kernel_on_slurm_engines_cancels_their_job(slurm_engines):
    cluster = MPICluster(n=2, start_timeout=120)
    try:
        cluster.start()
        assert engine_jobs(slurm_engines)
        with pytest.raises(kernels.KernelTimeout, match="engines were killed"):
            cluster.run("examples/deadlock", timeout=5)
        assert not cluster.running
        assert wait_until(lambda: not engine_jobs(slurm_engines), 30), slurm_engines.jobs()
    finally:
        cluster.stop()


@pytest.mark.one_family
def test_engines_that_cannot_be_placed_fail_clearly_and_leave_no_job(slurm_engines):
    # three tasks on two CPUs without --overcommit: the job pends forever (PartitionConfig)
    cluster = MPICluster(n=3, start_timeout=10)
    with pytest.raises(kernels.KernelError, match="could not start 3 MPI engines .slurm."):
        cluster.start()
    assert not cluster.running
    assert wait_until(lambda: not engine_jobs(slurm_engines), 30), slurm_engines.jobs()


def test_book_job_script_runs_commbook_measure_in_sbatch(slurm, repo, tmp_path, monkeypatch):
    """The script shown on the "Running on a cluster" page, submitted as it is; only the
    two-node placement is overridden on the command line (this Slurm has one node)."""
    monkeypatch.setenv("PATH", mpi_env.bin_path())
    script = repo / JOB_SCRIPT
    assert f"{{literalinclude}} scripts/{script.name}" in (repo / "book" / "cluster.md").read_text()
    job = scheduler.submit(script, ["--nodes=1", "--ntasks-per-node=2"], cwd=tmp_path, timeout=240)
    assert job.state == "COMPLETED" and job.exit_code == 0, job.output
    assert "size_bytes" in job.output and "commbook: wrote 24 rows" in job.output
    csv = tmp_path / f"pingpong-commbook-test-{job.job_id}.csv"
    measured = data.read_measurements(csv)
    table, meta = measured.table, measured.meta
    assert list(table["size_bytes"]) == [0] + [2**k for k in range(23)]
    assert set(table["machine"]) == {"commbook-test-debug"}
    assert set(table["mapping"]) == {"core"} and set(table["np"]) == {2}
    assert meta["np"] == "2" and "pingpong" in meta["command"]
    assert (table["t_us"] > 0).all()


@pytest.mark.slurm_time_limit
def test_job_over_its_time_limit_is_reported(slurm, tmp_path):
    script = tmp_path / "too_long.sbatch"
    script.write_text("#!/bin/bash\n#SBATCH --time=1\necho started\nsleep 600\n")
    t0 = time.monotonic()
    with pytest.raises(scheduler.JobTimeLimit, match="exceeded its time limit") as err:
        scheduler.submit(script, cwd=tmp_path, timeout=200)
    assert err.value.job.state == "TIMEOUT"
    assert "started" in str(err.value) and "00:01:00" in str(err.value)
    assert 55 < time.monotonic() - t0 < 200
    assert slurm.jobs() == []


def test_failed_job_is_reported_with_its_output(slurm, tmp_path):
    script = tmp_path / "fails.sbatch"
    script.write_text("#!/bin/bash\necho 'no input file' >&2\nexit 3\n")
    with pytest.raises(scheduler.JobFailed, match="ended FAILED with exit status 3") as err:
        scheduler.submit(script, cwd=tmp_path, timeout=60)
    assert "no input file" in str(err.value)


def test_refused_job_is_reported(slurm, tmp_path):
    script = tmp_path / "refused.sbatch"
    script.write_text("#!/bin/bash\n#SBATCH --partition=nosuchpartition\ntrue\n")
    with pytest.raises(scheduler.SchedulerError, match="sbatch refused.*invalid partition"):
        scheduler.submit(script, cwd=tmp_path, timeout=60)


@pytest.mark.one_family
def test_status_and_doctor_see_slurm(slurm_engines, capsys):
    st = scheduler.status()
    assert st.name == "slurm" and st.reachable and st.can_place_engines, st
    assert [p.name for p in st.partitions] == ["debug"]
    assert scheduler.mpi_plugin() in st.mpi_plugins + ["mpiexec"]
    # the full doctor, its 2-engine cluster placed through Slurm (COMMBOOK_ENGINES=slurm)
    assert commbook(["doctor", "--timeout", "120"]) == 0
    said = capsys.readouterr().out
    assert "[ok] scheduler: Slurm" in said and "engines can be placed" in said
    assert "[ok] ipyparallel MPI cluster (2 engines, slurm)" in said


def test_status_without_slurm(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # no sinfo here
    st = scheduler.status()
    assert st.name == "none" and not st.can_place_engines
    monkeypatch.setenv("PATH", mpi_env.bin_path())
    monkeypatch.setenv("SLURM_CONF", str(tmp_path / "missing.conf"))
    if shutil.which("sinfo"):
        st = scheduler.status()
        assert st.name == "slurm" and not st.reachable and "sinfo failed" in st.problem


def test_engine_job_options_come_from_the_environment():
    env = {
        "COMMBOOK_SLURM_QUEUE": "THIN",
        "COMMBOOK_SLURM_TIME": "00:30:00",
        "COMMBOOK_SLURM_OPTIONS": "--nodes=2 '--comment=a b' --x={y}",
    }
    options = scheduler.sbatch_options(env)
    assert options == ["--partition=THIN", "--time=00:30:00", "--nodes=2", "--comment=a b", "--x={y}"]
    text = scheduler.engine_batch_template(options, plugin="pmi2")
    assert "#SBATCH --partition=THIN\n" in text and '#SBATCH "--comment=a b"\n' in text
    assert "#SBATCH --x={{y}}" in text  # survives ipyparallel's str.format as {y}
    assert "srun --mpi=pmi2 {program_and_args}" in text
    assert "mpiexec -n {n} {program_and_args}" in scheduler.engine_batch_template([], "mpiexec")


def test_local_slurm_stops_everything(slurm_cluster, tmp_path):
    """A second test Slurm, with a job running, stopped: no daemon, job or job process left."""
    other = LocalSlurm(tmp_path, socket.gethostname().split(".")[0])
    other.start()
    try:
        marker = tmp_path / "job.pid"
        other.cmd("sbatch", f"--output={tmp_path}/out", "--wrap", f"echo $$ > {marker}; exec sleep 600")
        assert wait_until(marker.exists, 30), other.logs()
        job_pid = int(marker.read_text())
        assert is_alive(job_pid)
    finally:
        other.stop()
    assert other.running() == []
    assert wait_until(lambda: not is_alive(job_pid), 10)
