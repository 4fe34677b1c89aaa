"""`commbook measure` and `commbook doctor` from the command line."""

import os
import shutil
import subprocess
import sys

import pytest

from commbook import data, kernels
from commbook.cli import main

pytestmark = pytest.mark.mpi


def test_measure_pingpong_writes_tidy_file(tmp_path, capsys):
    out = tmp_path / "pp.csv"
    rc = main(
        ["measure", "pingpong", "--np", "2", "--sizes", "0:256", "--repetitions", "2", "--quiet", "--out", str(out)]
    )
    assert rc == 0
    m = data.read_measurements(out)
    assert len(m.table) == 10 and set(m.table["np"]) == {2}
    assert m.meta["command"].startswith("commbook measure pingpong")
    assert "size_bytes" in capsys.readouterr().out


def test_measure_validation_failure_exits_nonzero(tmp_path, capsys):
    out = tmp_path / "x.csv"
    rc = main(
        ["measure", "pingpong", "--np", "2", "--sizes", "8:8", "--inject-error", "1", "--quiet", "--out", str(out)]
    )
    assert rc == 3
    err = capsys.readouterr().err
    assert "commbook: pingpong: VALIDATION FAILED" in err
    assert "rank 1" in err  # the rank that saw the bad byte says so
    assert not out.exists()  # nothing written from a failed run
    assert "--inject-error" not in main_help("pingpong")  # testing-only: not in --help


def main_help(kernel: str) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit):
        main(["measure", kernel, "--help"])
    return buf.getvalue()


def test_measure_bad_arguments_one_line(capsys):
    assert main(["measure", "pingpong", "--np", "0"]) == 2
    assert main(["measure", "pingpong", "--sizes", "lots", "--quiet"]) == 1
    err = [
        line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith(kernels.RETRY_NOTICE)
    ]  # Open MPI's launcher flake, retried
    assert err[0] == "commbook: error: --np must be at least 1, not 0"
    assert err[1].startswith("commbook: error: kernel pingpong failed: ERROR: --sizes 'lots'")


def test_doctor_reports_all_good_and_leaves_nothing_in_dev_shm():
    """`commbook doctor` as a user runs it; as root, in a /dev/shm of its own (an empty tmpfs in
    a private mount namespace), which must still be empty afterwards: MPI initialised in the
    doctor's own process (Open MPI 5's singleton start) left a 16 MiB sm_segment.* per run."""
    cmd = [sys.executable, "-m", "commbook.cli", "doctor", "--no-cluster"]
    private = os.geteuid() == 0 and shutil.which("unshare") is not None
    if private:
        shm = 'mount -t tmpfs commbook-test /dev/shm && "$@"; rc=$?; echo "@shm:$(ls -A /dev/shm)"; exit $rc'
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", shm, "sh", *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "[ok] mpicc" in out and "[ok] mpi4py" in out and "[ok] mpiexec -n 2 pingpong" in out and "all good" in out
    if private:  # (without root the run is checked, not what it left in the shared /dev/shm)
        assert out.strip().splitlines()[-1] == "@shm:", out
