"""The collectives pages' verdicts (commbook.chapters.collectives): case keys and numbers, both ways,
over every row the pages show (including the rows an older, partial reading left out)."""

import pandas as pd
import pytest

from commbook.chapters.collectives import collectives_algorithms as alg
from commbook.chapters.collectives import collectives_orfeo as orf


def test_oversubscription_follows_the_core_count():
    v = alg.oversubscription(2, 8)
    assert v.case == "oversubscribed" and v.numbers == {"cores": 2, "P_max": 8}
    assert alg.oversubscription(8, 8).case == "own_cores"
    with pytest.raises(ValueError):
        alg.oversubscription(0, 8)


def test_bruck_allgather_meets_both_bounds_from_2_to_64():
    v = alg.allgather_bruck_bounds(2, 64)
    assert v.case == "meets" and v.numbers == {"P_first": 2, "P_last": 64, "missed": 0}


def test_bandwidth_term_ratio_at_128():
    # log2(128) = 7 against 2 (127/128): 3.53
    assert alg.bandwidth_term_ratio(128) == pytest.approx(7 / (2 * 127 / 128))


def test_process_count_ranges():
    assert orf._runs([2, 4, 6, 10, 18, 20]) == "2-6, 10, 18-20"
    assert orf._runs([]) == "none"


def _table(measured: dict, model: dict, alg="basic_linear", n=1):
    """A measured table (OSU rows) whose model is patched to `model` {P: µs}."""
    rows = [dict(np=P, size_bytes=n, algorithm=alg, t_us=t) for P, t in measured.items()]
    return pd.DataFrame(rows), model


def _patch_model(monkeypatch, model: dict):
    def fake(op, algs, nps, n, params=None, statistic=None):
        return pd.DataFrame([dict(np=P, algorithm=a, t_us=model[a][P]) for a in algs for P in nps])

    monkeypatch.setattr(orf.chapter, "orfeo_predictions", fake)


def test_linear_reads_every_P(monkeypatch):
    # at the largest P the linear broadcast is cheaper than its model, but above it at P = 10-12:
    # the old reading of P = 48 alone said "cheaper"
    measured = pd.DataFrame(
        [
            dict(np=P, size_bytes=1, algorithm="basic_linear", t_us=t)
            for P, t in {2: 0.9, 10: 1.3, 12: 1.1, 48: 0.4}.items()
        ]
    )
    _patch_model(monkeypatch, {"basic_linear": {2: 1.0, 10: 1.0, 12: 1.0, 48: 1.0}})
    v = orf.linear(measured, params={})
    assert v.case == "crosses"
    assert v.numbers["above_at"] == "10-12" and v.numbers["P_max"] == 10
    assert v.numbers["ratio_last"] == pytest.approx(0.4) and v.numbers["ratio_min"] == pytest.approx(0.4)
    below = measured.assign(t_us=measured.t_us.clip(upper=0.95))
    assert orf.linear(below, params={}).case == "below"
    assert orf.linear(measured.assign(t_us=2.0), params={}).case == "above"


def test_large_reads_every_P_and_algorithm(monkeypatch):
    nps = [2, 24, 48]
    model = {a: {P: 100.0 for P in nps} for a in orf.LARGE_ALGORITHMS}
    _patch_model(monkeypatch, model)
    t = {"basic_linear": [80, 200, 90], "chain": [90, 150, 140], "binary_tree": [95, 180, 270]}
    measured = pd.DataFrame(
        [dict(np=P, size_bytes=1 << 20, algorithm=a, t_us=float(x)) for a, xs in t.items() for P, x in zip(nps, xs)]
    )
    v = orf.large(measured, params={})
    assert v.case == "mostly_above"
    assert v.numbers["share_above"] == pytest.approx(5 / 9)
    assert (v.numbers["worst_alg"], v.numbers["worst_P"]) == ("binary tree", 48)
    assert v.numbers["ratio_max"] == pytest.approx(2.7)
    # the linear broadcast is below its model at P = 2 and 48: rows the P = 48-only reading missed at 2
    assert v.numbers["basic_linear_below_at"] == "2, 48" and v.numbers["chain_below_at"] == "2"
    low = measured.assign(t_us=measured.t_us.where(measured.np != 24, 99.0))
    assert orf.large(low, params={}).case == "mostly_below"


def test_small_trees_reads_every_P(monkeypatch):
    nps = [4, 24, 48]
    _patch_model(monkeypatch, {a: {P: 1.0 for P in nps} for a in ("binary_tree", "chain")})
    measured = pd.DataFrame(
        [
            dict(np=P, size_bytes=1, algorithm=a, t_us=t)
            for a, ts in {"binary_tree": [1.2, 1.6, 1.1], "chain": [0.4, 1.5, 1.05]}.items()
            for P, t in zip(nps, ts)
        ]
    )
    v = orf.small_trees(measured, params={})
    # P = 24 and 48 alone are within 2; the chain at P = 4 is a factor 2.5 off
    assert v.case == "beyond_two"
    assert (v.numbers["worst_alg"], v.numbers["worst_P"]) == ("chain", 4)
    assert v.numbers["at_24"] == pytest.approx(1.6) and v.numbers["at_48"] == pytest.approx(1.1)
    ok = measured.assign(t_us=measured.t_us.clip(lower=0.6))
    assert orf.small_trees(ok, params={}).case == "within_two"


def _chain_runs(times):
    """Measured "chain" broadcasts of 1 B at P = 2, 4, 6."""
    return pd.DataFrame([dict(np=P, size_bytes=1, algorithm="chain", t_us=t) for P, t in zip([2, 4, 6], times)])


def test_chains_name_the_P_of_each_model(monkeypatch):
    _patch_model(monkeypatch, {"chain": {2: 1.0, 4: 2.0, 6: 3.0}, "one chain": {2: 2.0, 4: 4.0, 6: 3.1}})
    measured = _chain_runs([1.0, 2.1, 3.2])
    v = orf.chains(measured, params={}, n=1)
    assert v.case == "split" and v.numbers == {"four_at": "2-4", "one_at": "6", "same_at": "none"}
    assert orf.chains(measured.assign(t_us=[1.0, 2.0, 3.0]), params={}, n=1).case == "four"


def test_chains_leave_out_the_P_where_the_models_are_the_same(monkeypatch):
    # up to P = 5 the four chains and the single chain are the same model: a tie favours neither
    _patch_model(monkeypatch, {"chain": {2: 1.0, 4: 2.0, 6: 3.0}, "one chain": {2: 1.0, 4: 2.0, 6: 4.0}})
    v = orf.chains(_chain_runs([1.5, 2.5, 3.2]), params={}, n=1)
    assert v.case == "four" and v.numbers == {"four_at": "6", "one_at": "none", "same_at": "2-4"}


def test_calibration_cases():
    ping = {"core": (0.2, 6200.0), "socket": (0.41, 5420.0), "node": (0.99, 12090.0)}
    v = orf.calibration({"core": (0.23, 14660.0), "socket": (0.44, 16544.0), "node": (1.07, 8256.0)}, ping)
    assert v.case == "latencies_agree"
    assert v.numbers["lat_pct"] == pytest.approx(15, abs=0.1)
    assert (v.numbers["bw_min_class"], v.numbers["bw_max_class"]) == ("node", "socket")
    assert orf.calibration(ping, ping).case == "both_agree"
    assert orf.calibration({k: (2 * l, b) for k, (l, b) in ping.items()}, ping).case == "bandwidths_agree"


def test_critical_path_reads_every_row():
    check = pd.DataFrame({"m": [0.37, 0.75], "e": [0.7, 13.4], "c": [0.46, 3.5]}, index=[4, 48])
    v = orf.critical_path(check)
    assert v.case == "above_all" and v.numbers["P_last"] == 48
    assert v.numbers["cp_over_min"] == pytest.approx(0.46 / 0.37)
    # below the measured mean at P = 4 only: a P = 48-only reading would not see it
    assert orf.critical_path(check.assign(c=[0.3, 3.5])).case == "not_above_all"


def test_verdicts_on_the_orfeo_data():
    from commbook import fit
    from commbook.chapters import collectives as chapter

    bcast, _ = chapter.orfeo_or_empty("giuliofantuzzi/bcast")
    if not len(bcast):
        pytest.skip("the derived ORFEO broadcast table is not in this checkout")
    params = fit.calibrate_link_classes(bcast)
    ob = bcast[bcast.mapping == "core"]
    lin = orf.linear(ob, params)
    # below the model at P = 48 (0.40) but above it at P = 10 and 20
    assert lin.case == "crosses" and lin.numbers["above_at"] == "10, 20"
    assert lin.numbers["ratio_last"] == pytest.approx(0.40, abs=0.01)
    large = orf.large(ob, params)
    assert large.case == "mostly_above" and large.numbers["share_above"] > 0.85
    assert large.numbers["chain_below_at"] == "2"
    one_mib = orf.chains(ob, params, 1 << 20)
    assert one_mib.case == "split" and one_mib.numbers["one_at"] == "6-44"
    assert one_mib.numbers["same_at"] == "2-4"
    assert orf.small_trees(ob, params).case == "beyond_two"
