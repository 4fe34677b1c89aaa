"""The ring page (commbook.chapters.ring): its verdicts follow the run they are given (no MPI)."""

from __future__ import annotations

import pandas as pd

from commbook.chapters import ring


def test_ring_model_side_oversubscription_and_node_step_follow_the_run():
    from commbook.chapters import ring

    assert "below the measured" in ring.model_agreement_text([4.0, 6.0], [2.0, 3.0])
    assert "above the measured" in ring.model_agreement_text([1.0, 1.5], [2.0, 3.0])
    assert "on some rings" in ring.model_agreement_text([1.0, 6.0], [2.0, 3.0])
    table = pd.DataFrame({"np": [1, 2, 3], "t_us": [0.5, 2.0, 3.0]})  # 1 µs per step, oversubscribed too
    assert "did not grow measurably" in ring.oversubscription_text(table, cores=2)
    assert "factor of only 1.5" in ring.oversubscription_text(table.assign(t_us=[0.5, 2.0, 4.5]), cores=2)
    assert "jumps there by 30.0" in ring.nodes_step_text(3, 30.0, 15.0, "2.0 times the model's")
    lost = ring.nodes_step_text(3, 2.0, 15.0, "7.5 times smaller than the model's")
    assert "lost in the run's noise" in lost and "jumps" not in lost
    assert "lost in the run's noise" in ring.nodes_step_text(3, -1.0, 15.0, "")


def test_ring_oversubscription_and_model_texts():
    table = pd.DataFrame({"np": [1, 2, 3], "t_us": [0.5, 2.0, 60.0]})
    assert "factor of 20" in ring.oversubscription_text(table, cores=2)
    assert "never oversubscribed" in ring.oversubscription_text(table, cores=4)
    assert "within 25 %" in ring.model_agreement_text([2.0, 3.0], [2.1, 2.9])
    assert "not on the points" in ring.model_agreement_text([4.0, 6.0], [2.0, 3.0])
