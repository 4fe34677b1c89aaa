"""The ping-pong pages (commbook.chapters.pingpong): every verdict's case and numbers follow the
numbers it is given, both ways, reading every size the page shows."""

from __future__ import annotations

import pandas as pd
import pytest

from commbook.chapters import pingpong as pp


def test_pingpong_reference_scope():
    from commbook.chapters import pingpong as pp

    here = {"cpu": "AMD EPYC", "cores": 2}
    assert pp.reference_scope({"cpu": "AMD EPYC", "cores": "2"}, here).case == "same_kind"
    v = pp.reference_scope({"cpu": "Intel Xeon", "cores": "2"}, here)
    assert v.case == "other_kind" and v.numbers["ref_cpu"] == "Intel Xeon" and v.numbers["cpu"] == "AMD EPYC"
    assert pp.reference_scope({"cpu": "AMD EPYC", "cores": "4"}, here).case == "other_kind"


def _moved(times):
    """The eager-limit table: {size: (eager time, rendezvous time)}, 4 KiB default, 32 KiB moved."""
    rows = []
    for size, (eager, rdv) in times.items():
        rows += [
            {"size_bytes": size, "eager_limit": "default", "t_min_us": rdv},
            {"size_bytes": size, "eager_limit": "32768", "t_min_us": eager},
        ]
    return pd.DataFrame(rows)


def test_eager_verdict_reads_every_size_between_the_limits():
    v = pp.eager_against_rendezvous(_moved({8192: (1.0, 2.0), 16384: (1.5, 3.0)}), 4096, 32768)
    assert v.case == "eager" and v.numbers["sizes"] == 2
    assert v.numbers["ratio_min"] == pytest.approx(0.5) and v.numbers["ratio_max"] == pytest.approx(0.5)
    assert (v.numbers["first"], v.numbers["last"]) == ("8 KiB", "16 KiB")
    assert pp.eager_against_rendezvous(_moved({8192: (2.0, 1.0), 16384: (3.0, 1.5)}), 4096, 32768).case == "rendezvous"
    # the old reading took 8 and 16 KiB only: a third size between the limits flips it to mixed
    three = _moved({8192: (1.0, 2.0), 16384: (1.5, 3.0), 4097 * 4: (5.0, 2.0)})
    assert pp.eager_against_rendezvous(three, 4096, 32768).case == "mixed"
    # sizes outside the limits are not read: eager at 64 KiB does not make it mixed
    outside = _moved({8192: (1.0, 2.0), 65536: (9.0, 2.0)})
    assert pp.eager_against_rendezvous(outside, 4096, 32768).case == "eager"
    assert pp.eager_against_rendezvous(_moved({2048: (1.0, 2.0)}), 4096, 32768).case == "none"
    # the limit counts the header: a message of exactly the default limit goes by rendezvous in
    # the default run (the lab's deadlock table hangs at 4096 B), so it is read; the moved limit is not
    at = pp.eager_against_rendezvous(_moved({4096: (0.97, 2.83), 8192: (1.0, 2.0), 32768: (7.15, 5.9)}), 4096, 32768)
    assert at.case == "eager" and at.numbers["sizes"] == 2
    assert (at.numbers["first"], at.numbers["last"]) == ("4 KiB", "8 KiB")
    assert at.numbers["ratio_min"] == pytest.approx(0.97 / 2.83)
    # a library that reports no default (MPICH): the sizes below the moved limit were read as
    # between the limits (eager here); nothing is known to lie between them
    assert pp.eager_against_rendezvous(_moved({8192: (1.0, 2.0)}), None, 32768).case == "none"
    # a size below both limits goes eagerly in both runs: the runs' own gap there (5.4 times at
    # 2 KiB in one build) as large as the protocols' makes it noise, a small one does not
    noisy = pp.eager_against_rendezvous(
        _moved({2048: (1.88, 0.35), 8192: (4.28, 11.71), 16384: (6.84, 8.66)}), 4096, 32768
    )
    assert noisy.case == "noise" and noisy.numbers["same_size"] == "2 KiB"
    assert noisy.numbers["same_factor"] == pytest.approx(1.88 / 0.35)
    quiet = _moved({2048: (0.36, 0.35), 8192: (4.28, 11.71), 16384: (6.84, 8.66)})
    assert pp.eager_against_rendezvous(quiet, 4096, 32768).case == "eager"
    assert pp.library_limit(4096).case == "reported" and pp.library_limit(4096).numbers["bytes"] == 4096
    assert pp.library_limit(None).case == "unreported"


def test_echo_verdict_reads_every_size():
    assert pp.echo_verdict([1.3, 1.2, 1.4]).case == "slower"
    assert pp.echo_verdict([0.8, 0.9, 0.7]).case == "faster"
    v = pp.echo_verdict([1.0, 1.01, 0.99])
    assert v.case == "same" and v.numbers["ratio_min"] == pytest.approx(0.99)
    # the old verdict took the median (1.3: slower); one size the other way makes it mixed
    assert pp.echo_verdict([1.3, 1.4, 0.8]).case == "mixed"


def test_hugepage_policy_and_allocation_verdicts():
    assert pp.hugepage_policy("madvise").case == "madvise" and pp.hugepage_policy("[odd]").case == "unknown"
    plain = pd.DataFrame({"size_bytes": [2**20, 2**26], "t_us": [100.0, 100.0]})
    v = pp.allocation_verdict(plain, plain.assign(t_us=80.0), "madvise")
    assert v.case == "faster" and v.numbers["ratio_max"] == pytest.approx(0.8) and v.numbers["last"] == "64 MiB"
    assert pp.allocation_verdict(plain, plain.assign(t_us=101.0)).case == "same"
    assert pp.allocation_verdict(plain, plain.assign(t_us=120.0)).case == "slower"
    assert pp.allocation_verdict(plain, plain.assign(t_us=80.0), "never").case == "noise"
    # the old verdict read the largest size only (faster there); 1 MiB the other way: mixed
    assert pp.allocation_verdict(plain, plain.assign(t_us=[130.0, 80.0])).case == "mixed"


def test_lab_verdicts_on_the_core_count_and_the_model_table():
    assert pp.cores_for_the_pair(1).case == "oversubscribed" and pp.cores_for_the_pair(2).case == "one_per_core"
    from commbook.models.hockney import Hockney

    here = pd.DataFrame({"size_bytes": [0, 0, 1024], "t_us": [1.0, 3.0, 4.0]})
    table = pp.model_against_measured(here, Hockney(1.0, 1024.0), [0, 1024])
    assert table.loc[0, "measured_us"] == 2.0 and table.loc[0, "ratio"] == pytest.approx(2.0)
    assert table.loc[1024, "model_us"] == pytest.approx(2.0) and table.loc[1024, "ratio"] == pytest.approx(2.0)


def test_machines_agree_from_the_largest_size_down():
    t = pd.DataFrame(
        {"thin": [1.0, 10.0, 100.0, 1000.0], "gpu": [1.4, 13.0, 101.0, 1001.0]}, index=[0, 1024, 2**20, 2**22]
    )
    assert pp.agree_from(t, 0.02) == 2**20
    assert pp.agree_from(t.assign(gpu=t.gpu * 1.1), 0.02) != pp.agree_from(t, 0.02)


def test_node_boundary_verdicts_of_the_pingpong_lab():
    from types import SimpleNamespace

    from commbook.nodes import boundary

    live = boundary.BoundaryRun(None, None, {"nodes": 2, "mpi_library": "Open MPI 5.0.7"}, live=True)
    assert boundary.provenance(live).case == "live" and boundary.provenance(live).numbers["nodes"] == 2
    shipped = boundary.BoundaryRun(None, None, {"machine": "m", "date": "2026-01-02T03", "command": "c"}, False, "why")
    v = boundary.provenance(shipped)
    assert v.case == "reference" and v.numbers["date"] == "2026-01-02" and v.numbers["why"] == "why"
    core = SimpleNamespace(lambda_us=0.5, bandwidth_MBps=8000.0)
    node = SimpleNamespace(lambda_us=20.0, bandwidth_MBps=3000.0)
    v = boundary.crossing({"core": core, "node": node})
    assert v.case == "lower" and v.numbers["lambda_ratio"] == pytest.approx(40.0)
    node.bandwidth_MBps = 9000.0
    assert boundary.crossing({"core": core, "node": node}).case == "higher"
