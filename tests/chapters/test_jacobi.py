"""The Jacobi page (commbook.chapters.jacobi): its verdicts follow the numbers they are given, both ways."""

from __future__ import annotations

import pandas as pd
import pytest

from commbook.chapters import jacobi as jac


def test_write_allocate_verdict_both_ways():
    idx = pd.MultiIndex.from_tuples([("memcpy (default build)", "copy"), ("plain loop", "copy")])
    nt = pd.DataFrame({"bandwidth_MBps": [10000, 7000], "bandwidth_wa_MBps": [15000, 10000]}, index=idx)
    wa = pd.DataFrame({"bandwidth_MBps": [7000, 7000], "bandwidth_wa_MBps": [10500, 10000]}, index=idx)
    assert "skipped the write-allocate" in jac.write_allocate_verdict(nt)
    assert "did pay the write-allocate" in jac.write_allocate_verdict(wa)


def test_report_check_facts_sets_the_worst_point_apart():
    runs = pd.DataFrame(
        {
            "np": [4, 24, 48],
            "machine": ["orfeo-thin", "orfeo-thin", "orfeo-gpu"],
            "measured_mlups": [100.0, 100.0, 100.0],
            "report_mlups": [90.0, 80.0, 120.0],
            "model_mlups": [101.0, 104.0, 136.0],
        }
    )
    f = jac.report_check_facts(runs)
    assert (f["worst_np"], f["worst_machine"]) == (48, "orfeo-gpu")
    assert f["report_under"] == pytest.approx((10.0, 20.0))
    assert f["consistent_over"] == pytest.approx((1.0, 4.0))


def test_jacobi_roof_direction_and_layer_words_follow_the_run():
    grids, planes = 2 * 256**3 * 8, 3 * 256**2 * 8
    assert jac.sweep_roof_words(0.9, grids, 32 << 20, "0.5") == "close to it"
    assert "cannot tell which" in jac.sweep_roof_words(0.48, grids, 32 << 20, "0.9")
    assert "not bound by memory" in jac.sweep_roof_words(1.5, grids, 1 << 30, "0.1")
    assert "cannot be" in jac.sweep_roof_words(1.5, grids, 32 << 20, "0.1")
    assert "2.5 times the *x*" in jac.direction_words(2.5)
    assert "about the same" in jac.direction_words(1.0)
    assert "even the faster" in jac.direction_words(0.5)
    assert "does not happen here" in jac.planes_in_cache_words(planes, 32 << 20)
    assert "may happen in part" in jac.planes_in_cache_words(planes, 2 << 20)
    assert "happens here too" in jac.planes_in_cache_words(planes, 1 << 20)
    assert "does not report" in jac.planes_in_cache_words(planes, 0)
    variants = pd.DataFrame(
        {"bandwidth_MBps": [10000.0, 12000.0], "bandwidth_wa_MBps": [15000.0, 18000.0]},
        index=pd.MultiIndex.from_tuples([("memcpy (default build)", "copy"), ("plain loop", "copy")]),
    )
    assert "cannot tell" in jac.write_allocate_verdict(variants) and "too busy" not in jac.write_allocate_verdict(
        variants
    )


def test_the_grids_against_the_cache_follow_the_sizes():
    from commbook.chapters import jacobi

    grids = 2 * 256**3 * 8  # 268 MB
    assert jacobi.grids_vs_cache_words(grids, 0).startswith("for a last-level cache")
    assert jacobi.grids_vs_cache_words(grids, 32 << 20).startswith("far beyond")
    assert jacobi.grids_vs_cache_words(grids, 128 << 20).startswith("beyond")
    assert jacobi.grids_vs_cache_words(grids, 503_000_000).startswith("together smaller")
