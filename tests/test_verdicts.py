"""The sentences pages glue about their own runs change when the measurements do (no MPI:
the inputs are small tables shaped like the kernels' output)."""

from __future__ import annotations

import pandas as pd
import pytest

from commbook import glued
from commbook.chapters import matrix_add as madd
from commbook.chapters import pingpong as pp
from commbook.chapters import ring
from commbook.chapters import topology as topo


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


def test_ring_oversubscription_and_model_verdicts():
    table = pd.DataFrame({"np": [1, 2, 3], "t_us": [0.5, 2.0, 60.0]})  # 1 µs per step, then 20
    v = ring.oversubscription(table, cores=2)
    assert v.case == "jump" and v.numbers["factor"] == pytest.approx(20) and v.numbers["own_us"] == 1.0
    assert ring.oversubscription(table, cores=4).case == "never"
    assert ring.oversubscription(table, cores=1).case == "no_pair"
    assert ring.model_side([1, 2], [2.0, 3.0], [2.1, 2.9]).case == "within"
    v = ring.model_side([2, 3], [4.0, 6.0], [2.0, 3.0])
    assert v.case == "below" and v.numbers["ratio_min"] == v.numbers["ratio_max"] == 2.0


def test_topology_formula_verdict_names_bounds():
    table = pd.DataFrame(
        [("ring", 8, 8, 2, 2, True, 16, 16), ("fat_tree", 8, 8, 8, 8, False, 64, 64)],
        columns="kind diameter diameter_formula bisection bisection_formula bisection_exact links links_formula".split(),
    )
    text = topo.formula_verdict(table)
    assert text.startswith("Every computed value equals its formula.") and "`fat_tree`" in text
    assert "differ for: ring links" in topo.formula_verdict(table.assign(links=[15, 64]))


def test_matrix_texts_follow_the_runs():
    by_P = pd.DataFrame(
        {"np": [1, 2], "t_add_median_us": [10.0, 5.0], "t_median_us": [100.0, 200.0], "t_serial_add_us": [10.0, 10.0]}
    )
    assert "not beaten" in madd.first_look_text(by_P)
    assert "was beaten here" in madd.first_look_text(by_P.assign(t_median_us=[100.0, 50.0]))
    assert "below one" in madd.limit_text(0.45, 900) and "above one" in madd.limit_text(1.3, 100)
    by_grid = pd.DataFrame({"t_median_us": [100.0, 104.0], "t_min_us": [95.0, 99.0], "t_max_us": [130.0, 120.0]})
    assert "no more than" in madd.grid_spread_text(by_grid)
    assert "did matter" in madd.grid_spread_text(by_grid.assign(t_median_us=[100.0, 150.0], t_max_us=[105.0, 155.0]))


@pytest.mark.parametrize("n, text", [(4096, "4 KiB"), (2**26, "64 MiB"), (100, "100 B"), (0, "0 B")])
def test_bytes_text(n, text):
    assert glued.bytes_text(n) == text
    assert glued.size_value("64K") == 65536 and glued.size_value("4") == 4


def test_the_grids_against_the_cache_follow_the_sizes():
    from commbook.chapters import jacobi

    grids = 2 * 256**3 * 8  # 268 MB
    assert jacobi.grids_vs_cache_words(grids, 0).startswith("for a last-level cache")
    assert jacobi.grids_vs_cache_words(grids, 32 << 20).startswith("far beyond")
    assert jacobi.grids_vs_cache_words(grids, 128 << 20).startswith("beyond")
    assert jacobi.grids_vs_cache_words(grids, 503_000_000).startswith("together smaller")
