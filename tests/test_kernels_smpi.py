"""Every C kernel (and the examples and exercise solutions) built with SimGrid's smpicc and run
under smpirun on a small simulated platform: it must validate its own answer and name SMPI.

Without smpicc/smpirun (Debian's libsimgrid-dev) the tests skip and say why; with
COMMBOOK_REQUIRE_SMPI=1 they fail instead. Each kernel is compiled once (the shared sources,
such as collectives_algos.c, once for all) and run with 4 ranks, 2 on each of 2 simulated hosts.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from commbook import config, kernels

# SMPI is its own MPI (SimGrid's headers and runtime): the host's MPI family changes nothing here
pytestmark = [pytest.mark.mpi, pytest.mark.one_family]

SMPICC, SMPIRUN = shutil.which("smpicc"), shutil.which("smpirun")
FLAGS = ["-O2", "-std=gnu11", "-Wall", "-Wextra", "-DCB_STANDALONE"]
NP = 4
COLLECTIVES = {"allgather", "allreduce", "alltoall", "bcast", "gather", "reduce_scatter"}

# Small options for each program: a few sizes, few iterations (the simulated clock makes any
# count cheap, but the host still computes every message).
COLLECTIVE = {"sizes": "0,8,1K", "iterations": 3, "repetitions": 1}
CASES = {
    "allgather": {"sizes": "1,1K", "iterations": 3, "repetitions": 1},
    "allreduce": {**COLLECTIVE, "algorithm": "butterfly-lh,butterfly-hl,ring,rabenseifner,library"},
    "alltoall": {"sizes": "1,1K", "iterations": 3, "repetitions": 1},
    "bandwidth": {"sizes": "1K:4K", "iterations": 3, "repetitions": 1, "window": 4},
    "bcast": {**COLLECTIVE, "algorithm": "linear,chain,pipeline,binary,binomial,scatter-allgather,library"},
    "gather": COLLECTIVE,
    "jacobi3d": {"L": 16, "sweeps": 2},
    "matrix_add": {"shape": "8x8x8", "repetitions": 1},
    "pingpong": {"sizes": "0:4K", "iterations": 3, "repetitions": 1},
    "reduce_scatter": {"sizes": "8,1K", "iterations": 3, "repetitions": 1},
    "ring": {"iterations": 3, "repetitions": 1},
    "stream": {"size": "1M", "repetitions": 1},
    "examples/cartesian": {},
    "examples/collectives": {},
    "examples/deadlock": {"order": "send-first"},
    "examples/measuring": {"repetitions": 5},
    "examples/point_to_point": {"count": 10},
    "examples/send_modes": {"large": "64K", "delay-ms": 10},
    "exercises/butterfly_solution": {"algorithm": "mine", "sizes": "0,8,56", "iterations": 3, "repetitions": 1},
    "exercises/eager_solution": {"max": "1M"},
    "exercises/gather_solution": {},
    "exercises/ring_solution": {"sizes": "4,1K", "repetitions": 1},
}
# 2 hosts of 4 cores (SimGrid 3.32's <cluster>): ranks 0-1 on n0, 2-3 on n1 (the hostfile)
PLATFORM = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="c" prefix="n" suffix="" radical="0-1" speed="1Gf" core="4" bw="10GBps" lat="1us"/>
  </zone>
</platform>
"""


@pytest.fixture(scope="module")
def smpi(tmp_path_factory):
    """The folder with the platform, the hostfile and the builds."""
    if SMPICC is None or SMPIRUN is None:
        reason = "SimGrid's smpicc/smpirun are not installed (apt-get install libsimgrid-dev)"
        if os.environ.get("COMMBOOK_REQUIRE_SMPI"):
            pytest.fail(f"SMPI is required here (COMMBOOK_REQUIRE_SMPI) but {reason}")
        pytest.skip(reason)
    d = tmp_path_factory.mktemp("smpi")
    (d / "platform.xml").write_text(PLATFORM)
    (d / "hostfile").write_text("n0:2\nn1:2\n")
    return d


_built: dict = {}  # source -> its object file (shared sources) or executable, built once


def _compile(args: list, what: str) -> None:
    proc = subprocess.run([SMPICC, *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"smpicc failed on {what}:\n{proc.stderr or proc.stdout}"
    assert "warning" not in proc.stderr, f"smpicc warns on {what}:\n{proc.stderr}"


def build(smpi, name: str):
    """The kernel built with smpicc from the same sources as every other build (c_sources)."""
    own, *shared = kernels.c_sources(name)
    if own in _built:
        return _built[own]
    includes = [f"-I{d}" for d in kernels.include_dirs(own)]
    for src in shared:
        if src not in _built:
            _built[src] = smpi / f"{src.stem}.o"
            _compile([*FLAGS, *includes, "-c", str(src), "-o", str(_built[src])], src.name)
    exe = smpi / name.replace("/", "_")
    _compile([*FLAGS, *includes, str(own), *(str(_built[s]) for s in shared), "-o", str(exe), "-lm"], own.name)
    _built[own] = exe
    return exe


def smpirun(smpi, exe, options: dict) -> subprocess.CompletedProcess:
    cmd = [SMPIRUN, "-np", str(NP), "-platform", str(smpi / "platform.xml"), "-hostfile", str(smpi / "hostfile")]
    cmd += ["--cfg=smpi/simulate-computation:no", "--log=root.thres:warning", str(exe), *kernels.kernel_args(options)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=smpi)


def output(proc) -> kernels.KernelOutput:
    """The kernel's lines: smpirun adds its own after a failed run (the command it ran)."""
    text = proc.stdout
    end = text.find("\n", text.find("# result:"))
    return kernels.parse_output(text[: end + 1] if "# result:" in text else text)


def test_every_program_has_a_simulated_case():
    """A new kernel must be added to CASES (with small options), so it is built under SMPI too."""
    root = config.kernels_dir()
    found = {p.stem for p in root.glob("*.c") if not kernels.is_shared_source(p)}
    found |= {f"examples/{p.stem}" for p in (root / "examples").glob("*.c")}
    found |= {f"exercises/{p.stem}" for p in (root / "exercises").glob("*_solution.c")}
    assert found == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_validates_under_smpi(smpi, name):
    proc = smpirun(smpi, build(smpi, name), CASES[name])
    out = output(proc)
    assert proc.returncode == 0 and out.ok, f"{name}: exit {proc.returncode}, {out.result!r}\n{proc.stderr[-2000:]}"
    assert out.meta["mpi_library"].startswith("SMPI Version 3."), out.meta["mpi_library"]
    assert out.meta["simulated"].startswith("yes")
    assert out.meta["rank_hosts"] == "n0*2,n1*2" and out.meta["node_count"] == "2"  # the simulated hosts
    if name in COLLECTIVES:  # each runs "library" too: SMPI's choice, which MPI_T cannot read back
        assert out.meta["library_selection"].startswith("unknown (simulated"), out.meta


def test_a_wrong_answer_fails_loudly_under_smpi(smpi):
    proc = smpirun(smpi, build(smpi, "bcast"), {**COLLECTIVE, "algorithm": "binomial", "inject-error": 1})
    out = output(proc)
    assert proc.returncode == 2 and out.result.startswith("VALIDATION FAILED"), proc.stdout + proc.stderr
    assert "commbook kernel: rank" in proc.stderr


def test_the_libraries_algorithm_is_not_forced_by_label_under_smpi(smpi):
    proc = smpirun(smpi, build(smpi, "gather"), {**COLLECTIVE, "algorithm": "library:2"})
    assert proc.returncode == 1
    assert "--cfg=smpi/gather:NAME" in output(proc).result


def test_a_deadlock_is_reported_by_simgrid(smpi):
    """No alarm() watchdog in a simulated run: SimGrid finds the deadlock itself, says so on
    stderr and ends the run without the kernel's result line (smpirun 3.32 still exits 0)."""
    proc = smpirun(smpi, build(smpi, "examples/deadlock"), {"order": "recv-first", "size": 4})
    assert output(proc).result == "", proc.stdout
    assert "Deadlock detected" in proc.stderr
