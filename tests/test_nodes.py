"""More than one node: the package on an emulated 3-node cluster with Slurm (tests/nodes_fixture.py),
through the same paths a real cluster takes (Slurm allocations and jobs, Open MPI's launch agent
with a hostfile), and the cluster itself: up, down, bad input, and every ending leaves nothing.

Timing assertions are ratios with wide margins (the machine is shared): TCP over a veth costs
~10-20 µs per message against well under 1 µs through shared memory."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from nodes_fixture import leftovers, require

from commbook import machine, mpi_env
from commbook.nodes import launch

pytestmark = [pytest.mark.timeout(300)]


def flavour() -> str:
    """The MPI family, asked when a test runs (the module is collected without MPI)."""
    return mpi_env.detect().family.name


def launch_agent_only():
    """The launch agent is Open MPI's (PRTE's plm_ssh_agent); MPICH reaches the nodes through
    Slurm (test_mpiexec_inside_an_allocation). Such tests are marked openmpi_only: CI's MPICH
    pass deselects them."""
    if flavour() != "openmpi":
        pytest.skip("the launch agent is Open MPI's; MPICH runs here through Slurm")


ENGINES = """
import json, os
from commbook.cluster import MPICluster

def where():
    import ctypes
    from mpi4py import MPI
    buf = ctypes.create_string_buffer(256)
    ctypes.CDLL(None).gethostname(buf, 256)  # the node's own UTS namespace
    comm = MPI.COMM_WORLD
    return buf.value.decode(), comm.Get_rank(), comm.Get_size(), comm.allreduce(comm.Get_rank() + 1)

with MPICluster(n=2, map_by={map_by!r}, start_timeout=150) as cluster:
    info = cluster._client[:].apply_sync(where)
    out = cluster.run("pingpong", {{"sizes": "8:8", "repetitions": 3, "iterations": 100}})
print(json.dumps({{"info": info, "hosts": out.meta["rank_hosts"], "nodes": out.meta["node_count"],
                  "ok": out.ok}}))
"""


@pytest.mark.mpi
@pytest.mark.slurm
@pytest.mark.parametrize("placement", ["slurm", pytest.param("launch_agent", marks=pytest.mark.openmpi_only)])
def test_engines_on_two_nodes_share_one_world(on_nodes, placement):
    env = {}
    if placement == "slurm":
        env = {"COMMBOOK_ENGINES": "slurm", "COMMBOOK_SLURM_OPTIONS": "--nodes=2 --ntasks-per-node=1"}
    else:
        launch_agent_only()
    got = on_nodes.python(ENGINES.format(map_by="node" if placement != "slurm" else None), env=env)
    hosts = sorted(h for h, _, _, _ in got["info"])
    assert len(set(hosts)) == 2 and set(hosts) <= {"node1", "node2", "node3"}, got
    assert sorted(r for _, r, _, _ in got["info"]) == [0, 1]
    assert {s for _, _, s, _ in got["info"]} == {2} and {t for *_, t in got["info"]} == {3}
    assert got["ok"] and got["nodes"] == "2" and len(got["hosts"].split(",")) == 2, got
    deadline = time.monotonic() + 30  # the engines' job completes after the cluster stopped
    while [j for j in on_nodes.jobs() if "ipengine" in j] and time.monotonic() < deadline:
        time.sleep(0.3)
    assert not [j for j in on_nodes.jobs() if "ipengine" in j]


# 8 B ping-pong, the fastest of 30 short repetitions (100 round trips, well inside a scheduler
# slice): the estimate least moved by other work on the machine. The one-node run binds each
# rank to its own core (launch.one_node_binding): unbound, another busy process packs both ranks
# onto one core and every message costs a context switch (Open MPI 0.83-0.87 us instead of
# 0.23-0.31; benchmarks/results/emulated_nodes.md has the measurements).
LATENCY = ["pingpong", "--np", "2", "--sizes", "8:8", "--iterations", "100", "--repetitions", "30"]
# Inter over intra, at least: Open MPI (sm against the tcp BTL) measured 16-25x with a busy core,
# MPICH (its shared memory, 0.63-0.65 us, against UCX over TCP, 4.4-5.1 us) 7-8x.
LATENCY_RATIO = {"openmpi": 10, "mpich": 5}


def fastest(m) -> float:
    return float(m.table["t_min_us"].iloc[0])


@pytest.mark.mpi
@pytest.mark.slurm
@pytest.mark.openmpi_only
def test_launch_agent_pingpong_across_nodes_is_10x_slower(on_nodes):
    """Through the launch agent and hostfile; each run held to the transport its link class
    should use (self,sm inside a node, self,tcp across): a fallback fails the run instead of
    passing as a slow link."""
    launch_agent_only()
    inter = on_nodes.measure(*LATENCY, "--map-by", "node", env={"OMPI_MCA_btl": "self,tcp"})
    binding = launch.one_node_binding(flavour())
    intra = on_nodes.measure(*LATENCY, "--map-by", "core", env={**binding, "OMPI_MCA_btl": "self,sm"})
    assert inter.meta["rank_hosts"] == "node1,node2" and inter.meta["node_count"] == "2"
    assert intra.meta["rank_hosts"] == "node1*2" and intra.meta["node_count"] == "1"
    assert set(inter.table["mapping"]) == {"node"}
    assert fastest(inter) >= LATENCY_RATIO["openmpi"] * fastest(intra), (fastest(inter), fastest(intra))


@pytest.mark.mpi
@pytest.mark.slurm
def test_mpiexec_inside_an_allocation_places_one_rank_per_node(on_nodes):
    """mpiexec inside `salloc -N2` (MPICH's Hydra or Open MPI's PRTE launch through srun), one
    rank per node, is slower than inside `salloc -N1 -n2` (ranks bound to cores) by the bound."""
    inter = on_nodes.measure(*LATENCY, allocation=["-N2", "--ntasks-per-node=1"])
    intra = on_nodes.measure(*LATENCY, allocation=["-N1", "-n2"], env=launch.one_node_binding(flavour()))
    assert inter.meta["node_count"] == "2" and len(set(machine.rank_hosts(inter.meta["rank_hosts"]))) == 2
    assert set(inter.table["mapping"]) == {"node"} and intra.meta["node_count"] == "1"
    assert inter.meta["mpi_library"].startswith("MPICH" if flavour() == "mpich" else "Open MPI")
    bound = LATENCY_RATIO[flavour()]
    assert fastest(inter) >= bound * fastest(intra), (flavour(), fastest(inter), fastest(intra))


@pytest.mark.mpi
@pytest.mark.slurm
@pytest.mark.openmpi_only
def test_launch_agent_ring_steps_up_at_the_node_crossing(on_nodes):
    """--map-by core on nodes of 2 slots: P = 2 stays on node1, P = 4 crosses twice."""
    launch_agent_only()
    opts = ["--size", "4", "--iterations", "100", "--repetitions", "7", "--map-by", "core"]
    inside = on_nodes.measure("ring", "--np", "2", *opts)
    across = on_nodes.measure("ring", "--np", "4", *opts)
    assert inside.meta["rank_hosts"] == "node1*2" and across.meta["rank_hosts"] == "node1*2,node2*2"
    step = {P: float(m.table["t_us"].iloc[0]) / P for P, m in ((2, inside), (4, across))}
    assert step[4] >= 5 * step[2], step


@pytest.mark.mpi
@pytest.mark.slurm
def test_collective_across_nodes_checks_its_result(on_nodes):
    """An allreduce over all three nodes in a Slurm allocation; the kernel checks every
    algorithm's result on every rank (a wrong one would exit non-zero: VALIDATION FAILED)."""
    m = on_nodes.measure(
        "allreduce",
        "--np",
        "3",
        "--algorithm",
        "ring,library",
        "--sizes",
        "8,64K",
        "--repetitions",
        "3",
        allocation=["-N3", "--ntasks-per-node=1"],
    )
    assert m.meta["node_count"] == "3"
    assert sorted(machine.rank_hosts(m.meta["rank_hosts"])) == ["node1", "node2", "node3"]
    assert len(m.table) == 4 and (m.table["t_us"] > 0).all()


@pytest.mark.mpi
@pytest.mark.slurm
def test_book_job_script_runs_on_two_nodes(on_nodes, repo):
    """The cluster page's job script, submitted as it is: two nodes, one rank each."""
    script = repo / "book" / "scripts" / "pingpong.sbatch"
    job_id = on_nodes.batch(script)
    from commbook import data

    m = data.read_measurements(on_nodes.scratch / f"pingpong-emulated-{job_id}.csv")
    assert m.meta["node_count"] == "2" and set(m.table["mapping"]) == {"node"}
    assert list(m.table["size_bytes"]) == [0] + [2**k for k in range(23)]
    assert set(m.table["machine"]) == {"emulated-nodes"}


# -- the cluster itself: up, down, bad input, faults -----------------------------------------


def commbook_nodes(*args, base: Path, timeout: float = 60, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "commbook.cli", "nodes", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "COMMBOOK_NODES_DIR": str(base)},
    )


def one_line(proc) -> str:
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def current(base: Path):
    from commbook.nodes import state

    return state.current(base) if base.exists() else None


def test_up_status_exec_down_leave_nothing(tmp_path):
    require()
    base = tmp_path / "nodes"
    up = commbook_nodes("up", "--nodes", "2", "--rate", "1gbit", base=base)
    assert up.returncode == 0 and "2 emulated nodes up in" in up.stdout, up.stderr
    record = current(base)
    assert commbook_nodes("status", base=base).returncode == 0
    shown = commbook_nodes("exec", "--node", "node2", "--", "sh", "-c", "hostname; tc qdisc show dev eth0", base=base)
    assert shown.stdout.startswith("node2\n") and "tbf" in shown.stdout, shown
    # an atomic write as `commbook measure --out f.csv` does it: a temporary file by absolute
    # path, renamed to a relative one (the working directory must be the cluster's mount's)
    write = "import os; p = os.path.abspath('t.tmp'); open(p, 'w').write('x'); os.replace(p, 'f.csv')"
    wrote = commbook_nodes("exec", "--", sys.executable, "-c", write, base=base, cwd=tmp_path)
    assert wrote.returncode == 0 and (tmp_path / "f.csv").read_text() == "x", wrote.stderr
    twice = commbook_nodes("up", "--nodes", "2", base=base)
    assert twice.returncode == 2 and "already up" in one_line(twice)
    down = commbook_nodes("down", base=base)
    assert down.returncode == 0 and "removed in" in down.stdout, down.stderr
    assert leftovers(record) == [] and not base.exists()


@pytest.mark.parametrize(
    "args, said",
    [
        (["up", "--nodes", "9"], "2 to 8 nodes"),
        (["up", "--nodes", "2", "--rate", "fast"], "is not a rate"),
        (["down"], "no emulated cluster is up"),
        (["exec", "--", "true"], "no emulated cluster is up"),
    ],
)
def test_bad_input_gets_one_line_and_changes_nothing(tmp_path, args, said):
    base = tmp_path / "nodes"
    if os.geteuid() == 0 and os.path.isdir("/run/netns"):
        # the command sees a private, empty /run/netns: other clusters of a shared machine
        # (a book build, another session) may come and go in the real one meanwhile
        private = 'mount -t tmpfs commbook-test /run/netns && "$@"; rc=$?; echo "@netns:$(ls -A /run/netns)"; exit $rc'
        wrap = ["unshare", "--mount", "--propagation", "private", "sh", "-c", private, "sh"]
        proc = subprocess.run(
            [*wrap, sys.executable, "-m", "commbook.cli", "nodes", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "COMMBOOK_NODES_DIR": str(base)},
        )
        assert proc.stdout.strip().splitlines()[-1] == "@netns:", proc.stdout
    else:
        netns_before = sorted(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else []
        proc = commbook_nodes(*args, base=base)
        assert (sorted(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else []) == netns_before
    assert proc.returncode == 2 and said in one_line(proc)
    assert not base.exists()


@pytest.mark.slurm
def test_a_dead_slurmd_is_reported_and_down_still_removes_everything(tmp_path):
    require()
    base = tmp_path / "nodes"
    assert commbook_nodes("up", "--nodes", "2", "--slurm", base=base).returncode == 0
    record = current(base)
    os.kill(record.daemons["slurmd@node2"][0], signal.SIGKILL)
    time.sleep(0.3)
    status = commbook_nodes("status", base=base)
    assert status.returncode == 1 and "slurmd@node2 is not running" in one_line(status)
    assert commbook_nodes("down", base=base).returncode == 0
    assert leftovers(record) == []


def wait_for_record(base: Path, phase: str | None = None, timeout: float = 30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            record = current(base)
        except Exception:  # half-written pointer: the record is written atomically, the
            record = None  # pointer too, but the folder may be new
        if record is not None and record.netns and (phase is None or record.phase == phase):
            return record
        time.sleep(0.01)
    raise AssertionError(f"no record in {base} within {timeout} s")


@pytest.mark.slurm
def test_ctrl_c_during_up_removes_what_was_made(tmp_path):
    require()
    base = tmp_path / "nodes"
    proc = subprocess.Popen(
        [sys.executable, "-m", "commbook.cli", "nodes", "up", "--nodes", "8", "--slurm"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COMMBOOK_NODES_DIR": str(base)},
    )
    record = wait_for_record(base)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "interrupted" in err and len(err.strip().splitlines()) == 1, err
    from commbook.nodes import state

    record = state.load(record.path) if record.path.exists() else record
    assert leftovers(record) == [] and not base.exists()


@pytest.mark.parametrize("ending", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_every_ending_of_the_keeper_removes_the_cluster(tmp_path, ending):
    """SIGTERM (what `down` sends), Ctrl-C, and SIGKILL (then the keeper's watchdog works)."""
    require()
    base = tmp_path / "nodes"
    assert commbook_nodes("up", "--nodes", "3", base=base).returncode == 0
    record = current(base)
    os.kill(record.keeper_pid, getattr(signal, ending))
    deadline = time.monotonic() + 20
    while leftovers(record) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftovers(record) == [] and current(base) is None


@pytest.mark.mpi
@pytest.mark.openmpi_only
@pytest.mark.parametrize("ending", ["SIGTERM", "SIGKILL"])
def test_a_measure_on_the_nodes_keeps_its_rows_when_the_cluster_goes(tmp_path, ending):
    """The keeper ended during a `commbook measure` across the nodes (SIGTERM: what `down`
    sends; SIGKILL: its watchdog removes the cluster): the command is told to stop, not killed
    with a bare "Killed", says so in one line and keeps the rows it had measured."""
    require()
    launch_agent_only()
    from commbook import data

    base = tmp_path / "nodes"
    assert commbook_nodes("up", "--nodes", "2", base=base).returncode == 0
    record = current(base)
    # sizes up to 64 MiB over TCP: tens of seconds, stopped after its second row
    measure = [sys.executable, "-m", "commbook.cli", "measure", "pingpong", "--np", "2", "--map-by", "node"]
    measure += ["--sizes", "8:64M", "--iterations", "100", "--repetitions", "3", "--out", "f.csv"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "commbook.cli", "nodes", "exec", "--", *measure],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COMMBOOK_NODES_DIR": str(base)},
    )
    before = []
    for line in proc.stderr:
        before.append(line)
        if len([l for l in before if l.startswith("  [")]) == 2:
            break
    else:
        raise AssertionError(f"the measurement ended before its second row: {''.join(before)}")
    os.kill(record.keeper_pid, getattr(signal, ending))
    rest = proc.stderr.read()
    proc.wait(30)
    said = [l for l in rest.splitlines() if l.strip() and not l.startswith("  [")]
    assert len(said) == 1 and "the emulated cluster went away" in said[0], rest
    assert "rows measured were written to f.csv" in said[0] and proc.returncode == 128 + signal.SIGTERM
    kept = data.read_measurements(tmp_path / "f.csv")
    assert len(kept.table) >= 2 and list(kept.table["size_bytes"][:2]) == [8, 16]
    assert "emulated cluster went away" in kept.meta["cut_short"] and kept.meta["rank_hosts"] == "node1,node2"
    deadline = time.monotonic() + 20
    while leftovers(record) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftovers(record) == [] and current(base) is None


OWNER = """
import sys, time
from commbook.nodes import EmulatedCluster
c = EmulatedCluster(nodes=2, base=sys.argv[1]).start()
print(c.record.path, flush=True)
time.sleep(600)
"""


def test_a_killed_owner_takes_its_cluster_with_it(tmp_path):
    """The Python API's owner SIGKILLed: its keeper sees the pipe close and removes all."""
    require()
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(tmp_path / "nodes")], stdout=subprocess.PIPE, text=True)
    from commbook.nodes import state

    record = state.load(owner.stdout.readline().strip())
    assert leftovers(record) != []
    owner.kill()
    owner.wait()
    deadline = time.monotonic() + 20
    while leftovers(record) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftovers(record) == []


def test_rates_are_parsed_as_tc_reads_them():
    from commbook.nodes import NodesError, netns

    assert netns.parse_rate("1gbit") == 1e9 and netns.parse_rate("100Mbit") == 1e8
    assert netns.parse_rate("125mbps") == 1e9 and netns.parse_rate("2.5gbit") == 2.5e9
    for bad in ("", "1", "fast", "1 gigabit", "-1gbit", "10bit"):
        with pytest.raises(NodesError):
            netns.parse_rate(bad)
    assert netns.tbf_burst_bytes(1e9) == 250000 and netns.tbf_burst_bytes(1e6) == 16384


def test_rank_hosts_and_mapping():
    assert machine.rank_hosts("node1*2,node2*2") == ["node1", "node1", "node2", "node2"]
    assert machine.rank_hosts("a,b,a") == ["a", "b", "a"] and machine.rank_hosts("") == []
    assert machine.mapping_of("node1,node2", 2) == "node"
    assert machine.mapping_of("node1*2,node2*2", 4) == "core"
    assert machine.mapping_of("node1*2", 2) == machine.local_mapping(2)


def test_node_boundary_reference_path(monkeypatch):
    """Where no emulated nodes can be made (forced here), the book's node-boundary sections
    draw the shipped reference run, say so, and every verdict is computed from it."""
    import matplotlib

    matplotlib.use("Agg")
    from commbook.nodes import boundary

    monkeypatch.setenv("COMMBOOK_NODES_REFERENCE", "1")
    run = boundary.load()
    v = boundary.provenance(run)
    assert not run.live and v.case == "reference" and v.numbers["why"] == "COMMBOOK_NODES_REFERENCE is set"
    assert "--write-reference" in run.meta["command"] and run.meta["rank_hosts"] == "node1,node2"
    links = boundary.fit_links(run)
    assert links["node"].lambda_us > 5 * links["core"].lambda_us
    pred = boundary.ring_prediction(run, links)
    assert pred.boundary_P == 3 and list(pred.P) == [2, 3, 4]
    assert pred.measured_jump_us > 0 and pred.model_jump_us > 0
    assert boundary.closeness(pred.ratio) and boundary.closeness(1.1) == "within 10% of the model"
    boundary.plot_pingpong(run, links)
    boundary.plot_ring(run, pred)
    # the live path is the book build's (as root, CI): tests/test_book.py reads what it says


def section(text: str, heading: str) -> str:
    """A page's section: from its `## heading` line to the next `## ` heading."""
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def test_a_book_build_measures_the_node_boundary_once(tmp_path, monkeypatch):
    """In a book build the first lab page measures the emulated nodes and the next reads that run
    (case `shared`); outside a build every page measures its own."""
    from commbook.nodes import boundary

    monkeypatch.setenv("COMMBOOK_NODES_REFERENCE", "1")
    shipped = boundary.load()
    monkeypatch.delenv("COMMBOOK_NODES_REFERENCE")
    calls = []

    def measure():
        calls.append(1)
        return boundary.BoundaryRun(shipped.pingpong, shipped.ring, shipped.meta, live=True)

    monkeypatch.setattr(boundary, "reference_reason", lambda: "")
    monkeypatch.setattr(boundary, "measure", measure)
    monkeypatch.setenv("COMMBOOK_BUILD_SHARED", str(tmp_path / "shared"))
    first, second = boundary.load(), boundary.load()
    assert len(calls) == 1
    assert [boundary.provenance(r).case for r in (first, second)] == ["live", "shared"]
    assert boundary.provenance(second).numbers == boundary.provenance(first).numbers
    assert second.ring.t_us.tolist() == first.ring.t_us.tolist()
    assert second.pingpong.t_us.tolist() == first.pingpong.t_us.tolist()
    monkeypatch.delenv("COMMBOOK_BUILD_SHARED")
    assert boundary.provenance(boundary.load()).case == "live" and len(calls) == 2


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_node_boundary_sections_render_the_reference_and_say_so(repo, tmp_path):
    """The ping-pong and ring chapters' node-boundary sections, built by Jupyter Book as a
    one-page book where no emulated nodes may be made (COMMBOOK_NODES_REFERENCE=1, what a user
    without namespaces gets): they draw the shipped run and the page says so. The live path is
    the whole book's build as root (tests/test_book.py)."""
    import yaml

    stage = tmp_path / "stage"
    (stage / "book").mkdir(parents=True)
    sections = [
        section((repo / "book" / f"{page}.md").read_text(), heading)
        for page, heading in (("pingpong_lab", "Across a node boundary"), ("ring_lab", "The bump on emulated nodes"))
    ]
    front = (repo / "book" / "pingpong.md").read_text().split("\n---\n", 1)[0] + "\n---\n"  # jupytext header
    setup = "\n```{code-cell} ipython3\nimport pandas as pd\nfrom commbook import glued, orfeo\n```\n"
    (stage / "book" / "nodes.md").write_text(front + "\n# The node boundary\n" + setup + "".join(sections))
    shutil.copytree(repo / "book" / "_static", stage / "book" / "_static")
    shutil.copy2(repo / "references.bib", stage / "references.bib")
    (stage / "_toc.yml").write_text("format: jb-book\nroot: book/nodes\n")
    book_config = yaml.safe_load((repo / "_config.yml").read_text())
    book_config["execute"]["execute_notebooks"] = "force"
    (stage / "_config.yml").write_text(yaml.safe_dump(book_config, sort_keys=False, allow_unicode=True))
    env = {**os.environ, "COMMBOOK_NODES_REFERENCE": "1", "COMMBOOK_ORFEO_MIRROR": "none"}
    code = "import sys; from pathlib import Path; from commbook import booktools; sys.exit(booktools.build(Path(sys.argv[1]), strict=False))"
    proc = subprocess.run([sys.executable, "-c", code, stage], capture_output=True, text=True, env=env, timeout=540)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    html = (stage / "_build" / "html" / "book" / "nodes.html").read_text()
    assert "Traceback (most recent call last)" not in html
    flat = re.sub(r"\s+", " ", html)
    # both sections' provenance verdicts chose the reference case, and show why (a glued value)
    import page_checks as pc

    assert pc.verdict_cases(html, r"(?:pp|ring)-nodes-source") == ["reference", "reference"], html[:2000]
    assert flat.count("COMMBOOK_NODES_REFERENCE is set") == 2, html[:2000]
    assert len(re.findall(r"<img [^>]*src=", html)) >= 2  # the ping-pong and the ring figures


def test_crossing_reads_latency_before_bandwidth():
    """The node-boundary verdict: bandwidth across higher or lower; a fit that puts the latency
    across at or below the latency inside a node gets its own case, whatever the bandwidths."""
    from types import SimpleNamespace as Link

    from commbook.nodes import boundary

    inside = Link(lambda_us=0.5, bandwidth_MBps=8000)
    assert boundary.crossing({"core": inside, "node": Link(lambda_us=20, bandwidth_MBps=9000)}).case == "higher"
    assert boundary.crossing({"core": inside, "node": Link(lambda_us=20, bandwidth_MBps=3000)}).case == "lower"
    for b in (3000, 9000):
        v = boundary.crossing({"core": inside, "node": Link(lambda_us=0.4, bandwidth_MBps=b)})
        assert v.case == "latency_not_higher" and v.numbers["lambda_ratio"] == pytest.approx(0.8)
