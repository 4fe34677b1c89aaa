"""The matrix-add page (commbook.chapters.matrix_add): its verdicts follow the runs they are given (no MPI)."""

from __future__ import annotations

import pandas as pd

from commbook.chapters import matrix_add as madd


def test_matrix_add_shrink_sliver_and_limit_follow_the_run():
    from commbook.chapters import matrix_add as madd

    by_P = pd.DataFrame({"np": [1, 2, 3], "t_add_median_us": [10.0, 5.0, 4.0], "t_median_us": [100.0, 200.0, 300.0]})
    assert "shrinks as the work is divided" in madd.first_look_text(by_P)
    assert "shrinks" not in madd.first_look_text(by_P.assign(t_add_median_us=[10.0, 5.0, 9.0]))
    rows = pd.DataFrame({"np": [2], "grid": ["2x1x1"], "t_add_median_us": [5.0], "t_median_us": [100.0]})

    class Pred:
        def __init__(self, add, total):
            self.add, self.total = add, total

    assert "a sliver" in madd.model_shape_text(rows, {"2x1x1": Pred(5.0, 100.0)})
    assert "a minor part" in madd.model_shape_text(rows.assign(t_add_median_us=20.0), {"2x1x1": Pred(5.0, 100.0)})
    assert "differs from the usual" in madd.model_shape_text(
        rows.assign(t_add_median_us=40.0), {"2x1x1": Pred(5.0, 100.0)}
    )
    above = madd.limit_text(1.3, 100)
    assert "above one" in above and "busy" in above and "in the model no number" in madd.limit_text(0.45, 900)


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
