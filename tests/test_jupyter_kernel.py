"""`commbook kernel install|remove` and what `commbook doctor` says about it, in a private
Jupyter data directory (never the user's). The kernel run by another JupyterLab is tested in
tests/test_jupyterlab.py."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

COMMBOOK = [sys.executable, "-m", "commbook.cli"]


@pytest.fixture
def jupyter_dirs(tmp_path, monkeypatch):
    env = {
        **os.environ,
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_PATH": "",
        "COMMBOOK_MACHINE": "kernel-test-machine",
    }
    monkeypatch.setenv("JUPYTER_DATA_DIR", env["JUPYTER_DATA_DIR"])
    return env


def _run(args, env):
    return subprocess.run(COMMBOOK + args, env=env, capture_output=True, text=True, timeout=120)


def test_install_writes_a_spec_with_this_environment_and_remove_undoes_it(jupyter_dirs, tmp_path):
    out = _run(["kernel", "install", "--user", "--name", "cb-test"], jupyter_dirs)
    assert out.returncode == 0, out.stderr
    spec_dir = tmp_path / "data" / "kernels" / "cb-test"
    spec = json.loads((spec_dir / "kernel.json").read_text())
    assert Path(spec["argv"][0]).resolve() == Path(sys.executable).resolve()
    path = spec["env"]["PATH"].split(os.pathsep)
    assert path[0] == str(Path(sys.executable).parent), "the venv's bin comes first"
    assert shutil.which("mpiexec", path=spec["env"]["PATH"]), "mpiexec found through the spec's PATH"
    assert spec["env"]["COMMBOOK_MACHINE"] == "kernel-test-machine"
    assert spec["env"]["VIRTUAL_ENV"] == sys.prefix
    from commbook import jupyter_kernel

    [k] = [k for k in jupyter_kernel.installed() if k.name == "cb-test"]
    assert k.ours_here
    assert _run(["kernel", "remove", "--name", "cb-test"], jupyter_dirs).returncode == 0
    assert not spec_dir.exists()


def test_prefix_install(jupyter_dirs, tmp_path):
    out = _run(["kernel", "install", "--prefix", str(tmp_path / "env")], jupyter_dirs)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "env" / "share" / "jupyter" / "kernels" / "commbook" / "kernel.json").is_file()
    out = _run(["kernel", "remove", "--prefix", str(tmp_path / "env")], jupyter_dirs)
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "env" / "share" / "jupyter" / "kernels" / "commbook").exists()


@pytest.mark.parametrize(
    "args, words",
    [
        (["kernel", "remove", "--name", "nothing-here"], "no commbook kernel named 'nothing-here'"),
        (["kernel", "install", "--name", "two words"], "kernel name 'two words'"),
        (["kernel", "install", "--user", "--prefix", "/tmp/x"], "not allowed with argument"),
    ],
)
def test_bad_requests_say_one_line(jupyter_dirs, args, words):
    out = _run(args, jupyter_dirs)
    assert out.returncode != 0 and words in out.stderr
    assert "Traceback" not in out.stderr


def test_doctor_reports_the_kernel(jupyter_dirs):
    from commbook import jupyter_kernel
    from commbook.cli import doctor

    jupyter_kernel.install("cb-doctor", user=True)
    try:
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            doctor._jupyter_kernel()
        assert "[ok] Jupyter kernel: 'cb-doctor' runs this environment" in buf.getvalue()
    finally:
        jupyter_kernel.remove("cb-doctor")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        doctor._jupyter_kernel()
    assert "commbook kernel install --user" in buf.getvalue()
