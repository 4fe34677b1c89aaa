"""The test harness itself (tests/conftest.py): clusters in a temporary IPython directory,
and no test skips without saying why."""

import os
import subprocess
import sys
from pathlib import Path

import pytest


def test_ipython_dir_is_temporary(ipython_dir):
    assert os.environ["IPYTHONDIR"] == str(ipython_dir)
    assert not ipython_dir.is_relative_to(Path.home() / ".ipython")


@pytest.mark.mpi
def test_clusters_keep_their_profile_in_the_temporary_ipython_dir(mpi_cluster, ipython_dir):
    profile = Path(mpi_cluster._cluster.profile_dir)
    assert profile.is_relative_to(ipython_dir), profile


def test_a_skip_without_reason_fails(repo, tmp_path):
    (tmp_path / "test_x.py").write_text(
        "import pytest\n"
        "def test_silent():\n    pytest.skip()\n"
        "@pytest.mark.skip\ndef test_unconditional():\n    pass\n"
        "def test_said():\n    pytest.skip('no chromium here')\n"
        "@pytest.mark.xfail(reason='known')\ndef test_known():\n    assert False\n"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "conftest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            str(tmp_path / "test_x.py"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=str(repo / "tests")),
    )
    out = proc.stdout
    assert proc.returncode == 1, out
    for name in ("test_silent", "test_unconditional"):  # failed in call, or in setup (error)
        assert f"test_x.py::{name} skipped without a reason" in out, out
    assert "SKIPPED [1] test_x.py:8: no chromium here" in out and "1 xfailed" in out, out
