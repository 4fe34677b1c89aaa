"""The topology page (commbook.chapters.topology): its verdicts read every row they are given."""

from __future__ import annotations

import pandas as pd

from commbook.chapters import topology as topo

COLUMNS = "kind diameter diameter_formula bisection bisection_formula bisection_exact links links_formula".split()


def _metrics(*rows):
    return pd.DataFrame(list(rows), columns=COLUMNS)


def test_formula_agreement_counts_exact_widths_and_bounds():
    t16 = _metrics(("ring", 8, 8, 2, 2, True, 16, 16), ("fat_tree", 8, 8, 8, 8, False, 64, 64))
    t64 = _metrics(("torus", 8, 8, 16, 16, False, 128, 128))
    v = topo.formula_agreement(t16, t64)
    assert v.case == "agree"
    assert v.numbers == {"rows": 3, "off": 0, "exact": 1, "bounds": 2, "bounds_above": 0}


def test_formula_agreement_reads_the_second_table_too():
    # the old sentence read the p = 16 table only: a bound above its formula at p = 64 flips it
    t16 = _metrics(("ring", 8, 8, 2, 2, True, 16, 16))
    t64 = _metrics(("torus", 8, 8, 18, 16, False, 128, 128), ("ring", 32, 32, 2, 2, False, 63, 64))
    assert topo.formula_agreement(t16).case == "agree"
    v = topo.formula_agreement(t16, t64)
    assert v.case == "differ" and v.numbers["off"] == 2 and v.numbers["bounds_above"] == 1


def _gap(torus, fat, nps=(64, 256, 1024)):
    rows = [("torus", P, r) for P, r in zip(nps, torus)] + [("fat-tree", P, r) for P, r in zip(nps, fat)]
    return pd.DataFrame(rows, columns=["network", "P", "ratio"])


def test_gap_growth_cases():
    v = topo.gap_growth(_gap([0.99, 1.40, 1.91], [0.88, 0.88, 0.88]))
    assert v.case == "torus"
    assert v.numbers == {
        "p_first": 64,
        "p_last": 1024,
        "torus_first": 0.99,
        "torus_last": 1.91,
        "fat_first": 0.88,
        "fat_last": 0.88,
        "growth_pct": 10.0,
    }
    assert topo.gap_growth(_gap([1.0, 1.0, 1.0], [0.9, 1.1, 1.3])).case == "fat_tree"
    assert topo.gap_growth(_gap([1.0, 1.2, 1.5], [0.9, 1.1, 1.3])).case == "both"
    assert topo.gap_growth(_gap([1.0, 1.05, 1.08], [0.9, 0.9, 0.9])).case == "neither"  # under 10 %


def test_gap_growth_reads_the_middle_rows():
    # first and last alone say "grows"; the P = 256 row above both says it does not rise with P
    assert topo.gap_growth(_gap([1.0, 2.5, 1.9], [0.9, 0.9, 0.9])).case == "neither"
    # rows in any order are read by P: 1.0 at 64, 1.9 at 256, 2.5 at 1,024 rises
    assert topo.gap_growth(_gap([1.0, 2.5, 1.9], [0.9, 0.9, 0.9], nps=(64, 1024, 256))).case == "torus"


class _Run:
    def __init__(self, reference=""):
        self.reference, self.library = reference, "SMPI 3.32"


def test_simulated_source_cases():
    live = topo.simulated_source([_Run(), _Run()], smpi_here=True)
    assert live.case == "live" and live.numbers == {"library": "SMPI 3.32", "shipped": 0, "points": 2}
    mixed = topo.simulated_source([_Run(), _Run("data/reference/simulated/x.csv")], smpi_here=True)
    assert mixed.case == "shipped" and mixed.numbers["shipped"] == 1
    # every point shipped: its own case, not "2 of these 2"
    every = topo.simulated_source([_Run("x"), _Run("y")], smpi_here=True)
    assert every.case == "all_shipped" and every.numbers["shipped"] == every.numbers["points"] == 2
    assert topo.simulated_source([_Run("x")], smpi_here=False).case == "absent"
