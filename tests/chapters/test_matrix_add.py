"""The matrix-add lab (commbook.chapters.matrix_add): its verdicts follow the runs they are given (no MPI)."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from commbook.chapters import matrix_add as madd
from commbook.models.hockney import Hockney


def _pred(add, total, serial=0.0):
    return SimpleNamespace(add=add, total=total, speedup=serial / total)


def test_first_look_reads_the_one_process_row():
    by_P = pd.DataFrame({"np": [1, 2, 3], "t_add_median_us": [20.0, 5.0, 4.0], "t_median_us": [100.0, 200.0, 300.0]})
    v = madd.first_look(by_P)
    assert v.case == "one_fastest"
    # the P = 1 row, which the old sentence left out, holds the largest add share
    assert v.numbers["share_max"] == pytest.approx(0.2) and v.numbers["share_p1"] == pytest.approx(0.2)
    beaten = madd.first_look(by_P.assign(t_median_us=[100.0, 50.0, 300.0]))
    assert beaten.case == "one_beaten" and beaten.numbers["beaten"] == 1 and beaten.numbers["fastest_ms"] == 0.05
    # beaten by both distributed runs: its own case, not "2 of the 2"
    every = madd.first_look(by_P.assign(t_median_us=[100.0, 50.0, 90.0]))
    assert every.case == "all_beaten" and every.numbers["beaten"] == every.numbers["runs"] == 2


def test_pack_against_two_scatters_transfer():
    link = Hockney(0.0, 1000.0)  # 1000 B/µs
    # 2x1x1 of 10x10x10: the root sends 500 elements, 4000 B, 4 µs per scatter; t_pack_us packs A and B
    rows = pd.DataFrame({"grid": ["2x1x1", "1x1x2"], "t_pack_us": [24.0, 30.0]})
    v = madd.pack_vs_transfer(rows, "10x10x10", link)
    assert v.case == "pack_larger" and v.numbers["ratio_min"] == pytest.approx(3.0)
    assert madd.pack_vs_transfer(rows.assign(t_pack_us=[1.0, 2.0]), "10x10x10", link).case == "pack_smaller"
    assert madd.pack_vs_transfer(rows.assign(t_pack_us=[1.0, 16.0]), "10x10x10", link).case == "mixed"


def test_grid_spread_against_repetitions():
    by_grid = pd.DataFrame({"t_median_us": [100.0, 104.0], "t_min_us": [95.0, 99.0], "t_max_us": [130.0, 120.0]})
    assert madd.grid_spread(by_grid).case == "within_noise"
    v = madd.grid_spread(by_grid.assign(t_median_us=[100.0, 150.0], t_max_us=[105.0, 155.0]))
    assert v.case == "grid_matters" and v.numbers["between"] == pytest.approx(0.5)


def test_add_share_reads_every_row_including_one_process():
    rows = pd.DataFrame(
        {"np": [1, 2], "grid": ["1x1x1", "2x1x1"], "t_add_median_us": [30.0, 5.0], "t_median_us": [100.0, 100.0]}
    )
    preds = {"1x1x1": _pred(21.0, 100.0), "2x1x1": _pred(5.0, 100.0)}
    # the P = 1 row's 30 % flips the case; the old code dropped that row and said "minor part"
    v = madd.add_share(rows, preds)
    assert v.case == "large" and v.numbers["measured_max"] == pytest.approx(0.3)
    assert madd.add_share(rows.iloc[1:], preds).case == "minor"


def test_speedup_reads_every_row():
    rows = pd.DataFrame(
        {"np": [1, 2], "grid": ["1x1x1", "2x1x1"], "t_serial_add_us": [120.0, 50.0], "t_median_us": [100.0, 100.0]}
    )
    preds = {"1x1x1": _pred(0, 100.0, 90.0), "2x1x1": _pred(0, 100.0, 50.0)}
    v = madd.speedup(rows, preds)
    assert v.case == "model_below" and v.numbers["measured_max"] == pytest.approx(1.2)
    assert madd.speedup(rows.iloc[1:], preds).case == "both_below"  # without P = 1 the case flips
    assert madd.speedup(rows.iloc[1:], {**preds, "2x1x1": _pred(0, 100.0, 150.0)}).case == "measured_below"


def test_limit_cases():
    assert madd.limit(0.45, 900).case == "below_one"
    # a limit of exactly 1: 'above_one' read 'the link moved 24 B faster than the sum added a pair'
    assert madd.limit(1.0, 500).case == "below_one"
    assert madd.limit(1.01, 500).case == "above_one"
    v = madd.limit(1.3, 100)
    assert v.case == "above_one" and v.numbers == {"value": 1.3, "add_rate": 100}


def test_total_side_reads_every_row_of_the_table():
    rows = pd.DataFrame({"np": [1, 2, 3], "grid": ["1x1x1", "2x1x1", "3x1x1"], "t_median_us": [100.0, 300.0, 330.0]})
    preds = {"1x1x1": _pred(0, 20.0), "2x1x1": _pred(0, 250.0), "3x1x1": _pred(0, 300.0)}
    # P = 2 and 3 within 25 %; the P = 1 row, five times the model, flips the case
    assert madd.total_side(rows.iloc[1:], preds).case == "within"
    v = madd.total_side(rows, preds)
    assert v.case == "below" and v.numbers["ratio_max"] == pytest.approx(5.0) and v.numbers["P_of_max"] == 1
    v = madd.total_side(rows, {**preds, "1x1x1": _pred(0, 200.0)})
    assert v.case == "mixed" and v.numbers["ratio_min"] == pytest.approx(0.5) and v.numbers["P_of_min"] == 1
    assert madd.total_side(rows, {g: _pred(0, 1000.0) for g in preds}).case == "above"
