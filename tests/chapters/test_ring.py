"""The ring pages (commbook.chapters.ring): every verdict's case and numbers follow the numbers it
is given, both ways, including the rows an older reading left out."""

from __future__ import annotations

import pandas as pd
import pytest

from commbook.chapters import ring


def test_ring_model_side_oversubscription_and_node_step_follow_the_run():
    from commbook.chapters import ring

    v = ring.model_side([2, 3], [4.0, 6.0], [2.0, 3.0])
    assert v.case == "below" and (v.numbers["ratio_min"], v.numbers["ratio_max"]) == (2.0, 2.0)
    assert ring.model_side([2, 3], [1.0, 1.5], [2.0, 3.0]).case == "above"
    v = ring.model_side([2, 3], [1.0, 6.0], [2.0, 3.0])
    assert v.case == "mixed" and (v.numbers["P_of_min"], v.numbers["P_of_max"]) == (2, 3)
    # the P = 1 row the old sentence dropped: a ring to itself, the model five times above it
    v = ring.model_side([1, 2, 3], [0.4, 3.0, 4.5], [2.0, 2.0, 3.0])
    assert v.case == "mixed" and v.numbers["ratio_min"] == pytest.approx(0.2) and v.numbers["P_of_min"] == 1
    assert ring.model_side([2, 3], [3.0, 4.5], [2.0, 3.0]).case == "below"
    assert (v.numbers["P_first"], v.numbers["P_last"]) == (1, 3)
    table = pd.DataFrame({"np": [1, 2, 3], "t_us": [0.5, 2.0, 3.0]})  # 1 µs per step, oversubscribed too
    v = ring.oversubscription(table, cores=2)
    assert v.case == "flat" and v.numbers["factor"] == pytest.approx(1.0)
    v = ring.oversubscription(table.assign(t_us=[0.5, 2.0, 4.5]), cores=2)
    assert v.case == "grew" and v.numbers["factor"] == pytest.approx(1.5)
    # P = 1 (0.5 µs, a rank to itself) is not a step with a core: it does not lower own_us
    assert ring.oversubscription(table.assign(t_us=[0.01, 2.0, 9.0]), cores=2).numbers["own_us"] == 1.0
    v = ring.node_step(3, 30.0, 15.0)
    assert v.case == "seen" and v.numbers["ratio"] == 2.0 and v.numbers["P"] == 3
    assert ring.node_step(3, 2.0, 15.0).case == "lost"
    assert ring.node_step(3, -1.0, 15.0).case == "lost"
    # a model with no rise at the boundary: 'lost' read 'at most half of it' of a jump of -2 µs
    assert ring.node_step(3, 5.0, -2.0).case == "model_flat"
    assert ring.node_step(3, 5.0, 0.0).case == "model_flat"
    assert ring.node_step(3, 5.0, 0.1).case == "seen"
    assert ring.size_side([4, 65536], [1.0, 30.0], [2.0, 20.0]).numbers["n_of_min"] == 4
    # the old sentence read the largest size only: within 25 % there, twice the model at 4 B
    assert ring.size_side([65536], [21.0], [20.0]).case == "within"
    v = ring.size_side([4, 65536], [4.0, 21.0], [2.0, 20.0])
    assert v.case == "below" and v.numbers["ratio_max"] == 2.0 and v.numbers["n_of_max"] == 4
    assert ring.what_this_machine_shows(2, False, 4).case == "no_node"
    assert ring.what_this_machine_shows(2, True, 4).case == "emulated_shared"  # P = 3, 4 on 2 cores
    assert ring.what_this_machine_shows(4, True, 4).case == "emulated"
    assert ring.what_this_machine_shows(1, True, 4).case == "one_core"
    # a hostfile or Slurm places the ranks elsewhere: this machine's cores say nothing of theirs
    v = ring.what_this_machine_shows(2, False, 4, "COMMBOOK_HOSTFILE")
    assert v.case == "elsewhere" and v.numbers["setting"] == "`COMMBOOK_HOSTFILE`"


def test_ring_oversubscription_and_model_verdicts():
    table = pd.DataFrame({"np": [1, 2, 3], "t_us": [0.5, 2.0, 60.0]})  # 1 µs per step, then 20
    v = ring.oversubscription(table, cores=2)
    assert v.case == "jump" and v.numbers["factor"] == pytest.approx(20) and v.numbers["own_us"] == 1.0
    assert ring.oversubscription(table, cores=4).case == "never"
    assert ring.oversubscription(table, cores=1).case == "no_pair"
    # the step with a core per rank: on 2 cores one ring (P = 2), which the old words called a median
    assert ring.own_core_step(table, cores=1).case == "none"
    v = ring.own_core_step(table, cores=2)
    assert v.case == "one" and v.numbers == {"us": 1.0, "P_last": 2}
    v = ring.own_core_step(table.assign(t_us=[0.5, 2.0, 9.0]), cores=4)
    assert v.case == "several" and v.numbers == {"us": 2.0, "P_last": 3}
    assert ring.model_side([1, 2], [2.0, 3.0], [2.1, 2.9]).case == "within"
    v = ring.model_side([2, 3], [4.0, 6.0], [2.0, 3.0])
    assert v.case == "below" and v.numbers["ratio_min"] == v.numbers["ratio_max"] == 2.0


def test_the_simulated_ring_says_where_its_points_come_from():
    from types import SimpleNamespace

    def run(P, step_us, reference=None):
        table = pd.DataFrame({"t_median_us": [step_us * P]})
        return SimpleNamespace(np=P, output=SimpleNamespace(table=table), library="SMPI 3.32", reference=reference)

    runs = [run(2, 0.4), run(12, 0.4), run(13, 0.9), run(24, 0.9), run(25, 2.0), run(48, 2.0)]
    v = ring.simulated_source(runs)
    assert v.case == "live"
    assert [v.numbers[k] for k in ("core_us", "socket_us", "node_us")] == pytest.approx([0.4, 0.9, 2.0])
    shipped = [run(P, 0.5, "data/reference/simulated/ring.csv") for P in (2, 13, 25)]
    assert ring.simulated_source(shipped).case == "reference"


def test_ring_lab_model_verdict_reads_both_variants_of_the_rows_with_a_core():
    def table(blocking, nonblocking, model=(2.0, 2.0, 3.0)):
        rows = [
            {"variant": var, "P": P, "measured_us": t, "model_us": m}
            for var, ts in (("blocking", blocking), ("nonblocking", nonblocking))
            for P, t, m in zip((1, 2, 3), ts, model)
        ]
        return pd.DataFrame(rows)

    # the blocking column alone: the model below every ring
    below = table([4.0, 4.0, 6.0], [4.0, 4.0, 6.0])
    assert ring.table_side(below, cores=2).case == "below"
    # the non-blocking column the old verdict left out: at P = 2 the model is above it -> mixed
    v = ring.table_side(table([4.0, 4.0, 6.0], [4.0, 1.0, 6.0]), cores=2)
    assert v.case == "mixed"
    assert (v.numbers["variant_of_min"], v.numbers["P_of_min"], v.numbers["ratio_min"]) == ("non-blocking", 2, 0.5)
    assert (v.numbers["P_first"], v.numbers["P_last"]) == (1, 2)
    # the oversubscribed row (P = 3 > cores) is not read; with three cores it is, and flips it
    assert ring.table_side(table([4.0, 4.0, 1.0], [4.0, 4.0, 6.0]), cores=2).case == "below"
    assert ring.table_side(table([4.0, 4.0, 1.0], [4.0, 4.0, 6.0]), cores=3).case == "mixed"
