"""The topology page (commbook.chapters.topology): its verdicts follow the bounds they are given."""

from __future__ import annotations

import pandas as pd

from commbook.chapters import topology as topo


def test_topology_formula_verdict_names_bounds():
    table = pd.DataFrame(
        [("ring", 8, 8, 2, 2, True, 16, 16), ("fat_tree", 8, 8, 8, 8, False, 64, 64)],
        columns="kind diameter diameter_formula bisection bisection_formula bisection_exact links links_formula".split(),
    )
    text = topo.formula_verdict(table)
    assert text.startswith("Every computed value equals its formula.") and "`fat_tree`" in text
    assert "differ for: ring links" in topo.formula_verdict(table.assign(links=[15, 64]))
