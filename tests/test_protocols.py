"""Protocols and duplex: the eager limit moved (deadlock example), the bandwidth kernel, and
the ping-pong's reply buffer. Correctness only; timings are for benchmarks/ and the book."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from commbook import kernels, protocols
from commbook.algorithms import EAGER_LIMIT_VARIABLES


def test_eager_env_names_the_librarys_variable_and_refuses_nonsense():
    assert protocols.eager_env(None) == {}
    assert protocols.eager_env(16384, "openmpi") == {"OMPI_MCA_btl_sm_eager_limit": "16384"}
    mpich = protocols.eager_env(65536, "mpich")
    assert mpich[EAGER_LIMIT_VARIABLES["mpich"]] == "65536"
    assert int(mpich["MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE"]) > 65536  # a cell holds it
    assert mpich["MPIR_CVAR_CH4_PACK_BUFFER_SIZE"] == mpich["MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE"]
    with pytest.raises(ValueError, match="positive"):
        protocols.eager_env(0, "openmpi")
    with pytest.raises(ValueError, match="Open MPI and MPICH"):
        protocols.eager_env(4096, "unknown")


@pytest.mark.mpi
def test_send_first_deadlocks_above_the_eager_limit_only():
    # default limits: Open MPI btl/sm 4096 bytes with its header, MPICH ch4 between 4 and 8 KiB:
    # 1 KiB is eager, 64 KiB is not, with either library
    assert protocols.deadlocks(64 * 1024, None, timeout=6) is True  # killed by the timeout
    # the book's table (two runs at a time), each answer in its own cell: moving the limit up to
    # 16 KiB sends 8 KiB eagerly and the same program completes; the program's own watchdog ends
    # the hang
    t0 = time.monotonic()
    table = protocols.deadlock_table([1024, 8192], [None, 16384], timeout=60, watchdog=2)
    assert time.monotonic() - t0 < 40
    assert table.to_dict() == {
        "16384": {1024: "completes", 8192: "completes"},
        "default": {1024: "completes", 8192: "deadlock (stuck 2 s, ended)"},
    }


@pytest.mark.mpi
def test_the_watchdog_says_deadlock_in_one_line():
    from commbook.process_tree import SEGMENT_PREFIXES

    shm = Path("/dev/shm")
    before = set(shm.iterdir()) if shm.is_dir() else set()
    with pytest.raises(kernels.KernelFailed) as err:
        kernels.run_mpiexec("examples/deadlock", 2, {"size": 8, "watchdog": 1}, timeout=60)
    assert "DEADLOCK: still inside the exchange after 1 s" in err.value.stderr
    # the ranks end in MPI_Abort, killed by the launcher, not MPI_Finalize: their segments go too
    left = [p.name for p in (set(shm.iterdir()) if shm.is_dir() else set()) - before]
    assert [n for n in left if n.startswith(SEGMENT_PREFIXES)] == []


@pytest.mark.mpi
def test_recv_first_and_bad_options():
    with pytest.raises(kernels.KernelTimeout):
        kernels.run_mpiexec("examples/deadlock", 2, {"size": 8}, timeout=5)
    with pytest.raises(kernels.KernelFailed, match="not recv-first or send-first"):
        kernels.run_mpiexec("examples/deadlock", 2, {"order": "sideways"}, timeout=60)


@pytest.mark.mpi
@pytest.mark.parametrize("P", [2, 3, 4])
def test_bandwidth_both_modes_validate_for_every_pair(P):
    out = kernels.run_mpiexec(
        "bandwidth", P, {"sizes": "1:64K", "iterations": 2, "repetitions": 1, "window": 4}, timeout=120
    )
    t = out.table
    assert out.ok and set(t.algorithm) == {"uni", "bi"} and len(t) == 2 * 17
    assert (t.pairs == P // 2).all()
    bi, uni = t[t.algorithm == "bi"], t[t.algorithm == "uni"]
    # both columns are printed to 0.001 MB/s: the product carries k times the per-link rounding
    rounding = lambda k: 0.0005 * (k + 1) + 1e-9  # noqa: E731
    k_bi, k_uni = 2 * (P // 2), P // 2
    assert bi.bandwidth_MBps.values == pytest.approx(k_bi * bi.per_link_MBps.values, rel=1e-2, abs=rounding(k_bi))
    assert uni.bandwidth_MBps.values == pytest.approx(k_uni * uni.per_link_MBps.values, rel=1e-2, abs=rounding(k_uni))
    if P % 2:
        assert "the last rank idles" in out.meta["pairs"]


@pytest.mark.mpi
def test_bandwidth_injected_error_and_bad_input():
    with pytest.raises(kernels.ValidationFailed, match="uni at 8 bytes"):
        kernels.run_mpiexec("bandwidth", 2, {"sizes": "8:16", "inject-error": 1}, timeout=60)
    with pytest.raises(kernels.KernelFailed, match="not a comma list of uni, bi"):
        kernels.run_mpiexec("bandwidth", 2, {"mode": "both"}, timeout=60)
    with pytest.raises(kernels.KernelFailed, match="at least 2 ranks"):
        kernels.run_mpiexec("bandwidth", 1, {}, timeout=60)


@pytest.mark.mpi
def test_duplex_table_from_a_run():
    out = kernels.run_mpiexec("bandwidth", 2, {"sizes": "64K:128K", "iterations": 2, "repetitions": 1}, timeout=120)
    d = protocols.duplex_table(out)
    assert list(d.index) == [65536, 131072] and (d["B / b"] > 0).all()
    one_way = kernels.run_mpiexec(
        "bandwidth", 2, {"sizes": "1K", "mode": "uni", "iterations": 2, "repetitions": 1}, timeout=60
    )
    with pytest.raises(ValueError, match="uni,bi"):
        protocols.duplex_table(one_way)


@pytest.mark.mpi
@pytest.mark.parametrize("echo", [0, 1])
def test_pingpong_reply_buffer_both_ways_validates(echo):
    out = kernels.run_mpiexec(
        "pingpong", 2, {"sizes": "0:64K", "echo": echo, "iterations": 5, "repetitions": 1}, timeout=120
    )
    assert out.ok and (out.table.echo == echo).all()
    assert ("echo" in out.meta["reply"]) == bool(echo)
    with pytest.raises(kernels.ValidationFailed):
        kernels.run_mpiexec("pingpong", 2, {"sizes": "8:8", "echo": echo, "inject-error": 1}, timeout=60)


def test_echo_comparison_alternates_and_takes_the_fastest():
    import pandas as pd

    from commbook.kernels import KernelOutput

    calls = []

    def fake_run(kernel, options):
        calls.append((options["sizes"], options["echo"]))
        t = 2.0 if options["echo"] else 1.0
        t += len(calls) * 0.01  # later runs slower: only the minimum must count
        table = pd.DataFrame([{"size_bytes": int(options["sizes"].split(":")[0]), "t_min_us": t}])
        return KernelOutput(meta={}, table=table, result="ok", text="")

    d = protocols.echo_comparison(fake_run, [1024, 2048], rounds=2)
    assert calls[:4] == [("1024:1024", 0), ("1024:1024", 1), ("2048:2048", 0), ("2048:2048", 1)]
    assert len(calls) == 8
    assert d.loc[1024, "echo / own buffer"] == pytest.approx(2.02 / 1.01)
