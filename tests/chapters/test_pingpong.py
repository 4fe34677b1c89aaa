"""The ping-pong page (commbook.chapters.pingpong): its verdicts follow the tables they are given (no MPI)."""

from __future__ import annotations

import pandas as pd

from commbook.chapters import pingpong as pp


def test_pingpong_reference_scope_and_allocation_under_each_policy():
    from commbook.chapters import pingpong as pp

    here = {"cpu": "AMD EPYC", "cores": 2}
    assert "same kind of machine" in pp.reference_scope({"cpu": "AMD EPYC", "cores": "2"}, here)
    assert "another kind of machine" in pp.reference_scope({"cpu": "Intel Xeon", "cores": "2"}, here)
    plain = pd.DataFrame({"size_bytes": [1 << 26], "t_us": [10000.0]})
    huge = pd.DataFrame({"size_bytes": [1 << 26], "t_us": [5000.0]})
    assert "faster copies" in pp.allocation_verdict(plain, huge, "madvise")
    assert "noise" in pp.allocation_verdict(plain, huge, "never")
    assert "noise" in pp.allocation_verdict(plain, huge, "always")
    assert "no difference" in pp.allocation_verdict(plain, plain, "never")


def _moved(eager_8k, rdv_8k):
    rows = []
    for limit, t8 in (("default", rdv_8k), ("32768", eager_8k)):
        rows += [
            {"size_bytes": 8192, "eager_limit": limit, "t_min_us": t8},
            {"size_bytes": 16384, "eager_limit": limit, "t_min_us": t8 * 1.5},
        ]
    return pd.DataFrame(rows)


def test_eager_verdict_follows_the_table():
    assert "sending them eagerly was the cheaper" in pp.eager_against_rendezvous(_moved(1.0, 2.0))
    assert "by rendezvous was the cheaper" in pp.eager_against_rendezvous(_moved(2.0, 1.0))
    assert "8 KiB: 1.00 µs eagerly, 2.00 µs by rendezvous" in pp.eager_against_rendezvous(_moved(1.0, 2.0))
    assert "none of the sizes" in pp.eager_against_rendezvous(_moved(1.0, 2.0), sizes=(4096,))


def test_echo_and_hugepage_and_allocation_verdicts():
    assert "slower" in pp.echo_verdict([1.3, 1.2, 1.4])
    assert "*faster*" in pp.echo_verdict([0.8, 0.9, 0.7])
    assert "within 5 %" in pp.echo_verdict([1.0, 1.01, 0.99])
    assert "opt-in" in pp.hugepage_policy_text("madvise") and "always" in pp.hugepage_policy_text("always")
    plain = pd.DataFrame({"size_bytes": [2**26], "t_us": [100.0]})
    assert "faster copies" in pp.allocation_verdict(plain, plain.assign(t_us=80.0))
    assert "no difference" in pp.allocation_verdict(plain, plain.assign(t_us=101.0))


def test_machines_agree_from_the_largest_size_down():
    t = pd.DataFrame(
        {"thin": [1.0, 10.0, 100.0, 1000.0], "gpu": [1.4, 13.0, 101.0, 1001.0]}, index=[0, 1024, 2**20, 2**22]
    )
    assert pp.agree_from(t, 0.02) == 2**20
    assert pp.agree_from(t.assign(gpu=t.gpu * 1.1), 0.02) != pp.agree_from(t, 0.02)
