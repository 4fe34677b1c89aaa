"""The verdicts of the collectives_library lab (case keys and numbers, both ways, including the
rows an older reading left out) and the lesson's ORFEO and lecture facts. Fast, no MPI."""

import math

import pandas as pd
import pytest

from commbook.chapters.collectives import collectives_library as lib
from commbook.chapters.collectives import exchange as ex


def _p2_table(library_8=0.30, seg_cost=4.0, library_0=0.05):
    sizes = [0, 8, 1 << 22]
    by = pd.DataFrame({a: [0.1, 0.3, 400.0] for a in ["linear", "chain", "binary", "binomial"]}, index=sizes)
    by["library"] = [library_0, library_8, 400.0]
    by["pipeline"] = [0.5, 0.5, 400.0 + 255 * seg_cost]
    by["scatter-allgather"] = [0.6, 0.6, 450.0]
    return by


def test_p2_library_reads_the_four_one_send_broadcasts():
    v = lib.p2_library(_p2_table())
    assert v.case == "same" and v.numbers["ratio"] == pytest.approx(1.0)
    assert v.numbers["band_pct"] == pytest.approx(100 * lib.SAME_BAND)  # the page states the band
    assert lib.p2_library(_p2_table(library_8=0.6)).case == "dearer"
    assert lib.p2_library(_p2_table(library_8=0.1)).case == "cheaper"
    # one one-send broadcast much slower moves the min-max span, not the median the case reads
    slow = _p2_table()
    slow.loc[8, "linear"] = 3.0
    v = lib.p2_library(slow)
    assert v.case == "same" and v.numbers["one_max_us"] == 3.0


def test_p2_zero_against_the_fastest_of_every_other_broadcast():
    assert lib.p2_zero(_p2_table()).case == "faster"
    assert lib.p2_zero(_p2_table(library_0=0.2)).case == "not_faster"
    # the pipeline and scatter-allgather count too: a faster one of them flips the case
    by = _p2_table(library_0=0.08)
    assert lib.p2_zero(by).case == "faster"
    by.loc[0, "pipeline"] = 0.01
    assert lib.p2_zero(by).case == "not_faster"


def test_p2_segment_and_table():
    by = _p2_table()
    per = lib.per_segment_us(by)
    assert per == pytest.approx(4.0)
    v = lib.p2_segment(per, lam=0.3)
    assert v.case == "far" and v.numbers["lambdas"] == pytest.approx(4.0 / 0.3)
    assert lib.p2_segment(0.6, lam=0.3).case == "close"
    # far below the model's one λ is not "far": at most 3 λ
    v = lib.p2_segment(0.01, lam=0.3)
    assert v.case == "close" and v.numbers["far"] == 3
    # a pipeline no slower than the chain: no cost to quote
    assert lib.p2_segment(0.0, lam=0.3).case == lib.p2_segment(-0.1, lam=0.3).case == "free"
    t = lib.p2_bcast_table(by, lam=0.3, bw=10000.0)
    assert set(t.bytes) == {8, 1 << 22} and len(t) == 8
    pipe = t[(t.bytes == 1 << 22) & (t.broadcast == "pipeline")].iloc[0]
    assert pipe["model (µs)"] == pytest.approx(256 * 0.3 + (1 << 22) / 10000.0)


def test_segment_against_the_eager_limit():
    assert lib.segment_eager(4096, 16384).case == "above"
    assert lib.segment_eager(65536, 16384).case == "within"
    v = lib.segment_eager(None)
    assert v.case == "unknown" and v.numbers["eager_bytes"] == 0


def test_crossover_reads_both_algorithms():
    v = lib.crossover(5520, {"ring": 1 << 20, "rabenseifner": 2 << 20})
    assert v.case == "above" and v.numbers["ratio_min"] == pytest.approx((1 << 20) / 5520)
    assert lib.crossover(1000, {"ring": 1500, "rabenseifner": 1200}).case == "near"
    assert lib.crossover(1000, {"ring": 1500, "rabenseifner": 1200}).numbers["near"] == lib.NEAR == 1.5
    assert lib.crossover(1000, {"ring": 100, "rabenseifner": 200}).case == "below"
    assert lib.crossover(1000, {"ring": math.inf, "rabenseifner": math.inf}).case == "never"
    # one that never came is no crossover: "both crossovers" would count it, whatever side the other
    v = lib.crossover(1000, {"ring": 1100, "rabenseifner": math.inf})
    assert v.case == "one_never" and v.numbers["ratio_max"] == pytest.approx(1.1)
    assert (v.numbers["crossed"], v.numbers["not_crossed"]) == ("ring", "rabenseifner")
    assert lib.crossover(1000, {"ring": 3000, "rabenseifner": math.inf}).case == "one_never"
    assert lib.crossover(1000, {"ring": math.inf, "rabenseifner": 200}).case == "one_never"
    assert lib.crossover(1000, {"ring": 3000, "rabenseifner": 2500}).numbers["crossed"] == "none"
    # one near and one far on the same side is that side; "mixed" only when they straddle the model
    assert lib.crossover(1000, {"ring": 900, "rabenseifner": 200}).case == "below"
    assert lib.crossover(1000, {"ring": 1100, "rabenseifner": 200}).case == "mixed"
    assert lib.crossover(1000, {"ring": 3000, "rabenseifner": 200}).case == "mixed"


def test_cache_add_and_p4():
    assert lib.cache_add(1.3).case == "faster"
    assert lib.cache_add(1.05).case == "same"
    v = lib.cache_add(1 / 1.2)
    assert v.case == "slower" and v.numbers["inverse"] == pytest.approx(1.2)
    assert lib.p4_setting(2).case == "oversubscribed"
    assert lib.p4_setting(1).numbers["cores"] == 1  # P = 2 is oversubscribed too: the words say "more than 1"
    assert lib.p4_setting(8).case == "own_cores"
    v = lib.p4_setting(8, placed_by="COMMBOOK_HOSTFILE")
    assert v.case == "elsewhere" and v.numbers["setting"] == "`COMMBOOK_HOSTFILE`"
    assert lib.p4_crossover(math.inf, 1000).case == "never"
    v = lib.p4_crossover(256000, 1000)
    assert v.case == "above" and v.numbers["ratio"] == pytest.approx(256)
    assert lib.p4_crossover(1200, 1000).case == "near"
    assert lib.p4_crossover(math.inf, 1000).numbers["near"] == lib.NEAR  # glued in every case
    assert lib.p4_crossover(250, 1000).numbers["inverse"] == pytest.approx(4)


def test_exchange_model_side_reads_every_row():
    times = pd.DataFrame(
        {"op": ["reduce_scatter"] * 3, "np": [2] * 3, "size_bytes": [0, 8, 65536], "t_us": [0.5, 1.1, 10.0]}
    )
    table = ex.model_table(times, 1.0, 10000.0)
    assert len(table) == 2  # size 0 has no model row
    v = ex.model_side(table)
    assert v.case == "above" and v.numbers["worst_op"] == "reduce-scatter" and v.numbers["rows"] == 2
    assert ex.model_side(table.assign(**{"measured/model": [1.1, 1.5]})).case == "within"
    # one row far below the model flips it, whatever the others say
    assert ex.model_side(table.assign(**{"measured/model": [0.3, 1.5]})).case == "below"
    assert ex.model_side(table.assign(**{"measured/model": [0.3, 3.0]})).case == "both"


def test_exchange_pattern_match():
    rows = pd.DataFrame(
        {"op": ["allgather", "alltoall"], "forced": ["library:2", "library:3"], "messages per rank": [2.0, 3.0]}
    ).assign(**{"in the model": [2, 2]})
    v = ex.pattern_match(rows)
    assert v.case == "some" and (v.numbers["matched"], v.numbers["counted"]) == (1, 2)
    assert "library:3" in v.numbers["differ"]
    assert ex.pattern_match(rows.assign(**{"in the model": [2, 3]})).case == "all"
    assert ex.pattern_match(rows.assign(**{"messages per rank": float("nan")})).case == "uncounted"


def test_chain_heads():
    assert lib.chain_heads(None).case == "uncounted"
    msgs = pd.DataFrame(
        {"algorithm": ["library:2"] * 5, "src": [0, 0, 0, 0, 1], "dst": [1, 2, 3, 4, 5], "count": [1, 1, 1, 1, 1]}
    )
    v = lib.chain_heads(msgs, 6)
    assert v.case == "counted" and v.numbers["heads"] == 4
    one = pd.DataFrame(
        {"algorithm": ["library:2"] * 5, "src": [0, 1, 2, 3, 4], "dst": [1, 2, 3, 4, 5], "count": [1] * 5}
    )
    assert lib.chain_heads(one, 6).case == "one" and lib.chain_heads(one, 6).numbers["heads"] == 1


def test_logp_gap_from_a_slope():
    # mean over ranks grows by g/2 per process: g = 0.1 us on cores, 0.3 us across nodes
    rows = [(P, 0.2 + 0.05 * P) for P in range(2, 13, 2)] + [(P, 1.0 + 0.15 * P) for P in range(26, 49, 2)]
    t = pd.DataFrame(rows, columns=["np", "t_us"])
    gaps = lib.logp_gaps(t, {"core": (0.25, 1e4), "node": (1.0, 1e4)})
    assert gaps.loc["core", "g from the slope (µs)"] == pytest.approx(0.1)
    assert gaps.loc["node", "g from the slope (µs)"] == pytest.approx(0.3)
    assert gaps.loc["core", "g / λ"] == pytest.approx(0.4)


def test_orfeo_linear_facts_say_the_latencies_overlap():
    try:
        f = lib.orfeo_linear_facts()
    except LookupError as e:
        pytest.skip(str(e))
    # the lesson's sentence: in both link classes g < λ, and the model is closer at 1 MiB than at 1 B
    assert f["g_core"] < f["lambda_core"] and f["g_node"] < f["lambda_node"]
    assert abs(math.log(f[f"ratio_{1 << 20}"])) < abs(math.log(f["ratio_1"]))


def test_the_lab_words_every_case_each_verdict_declares():
    """Without a build: every glued.verdict(name, module.function(...)) of the lab has a
    {verdict} name directive whose terms are exactly the function's declared cases."""
    import re
    from pathlib import Path

    text = (Path(__file__).parents[2] / "book" / "collectives_library_lab.md").read_text(encoding="utf-8")
    modules = {"lib_chapter": lib, "exchange": ex}
    glued = dict(re.findall(r'glued\.verdict\("(\w+)", (\w+\.\w+)\(', text))
    worded = {
        name: re.findall(r"^(\w+)\n: ", "\n" + body, re.M)
        for name, body in re.findall(r"```\{verdict\} (\w+)\n(.*?)```", text, re.S)
    }
    assert glued and set(glued) == set(worded)
    for name, call in glued.items():
        module, function = call.split(".")
        assert sorted(worded[name]) == sorted(getattr(modules[module], function).cases), name


def test_the_corrected_crossover_needs_an_extra_segment_that_costs_something():
    v = lib.corrected_crossover(0.5, gamma_cache=0.001)
    assert v.case == "corrected" and v.numbers["bytes"] == pytest.approx(1000.0)
    free = lib.corrected_crossover(-0.2, 0.001)
    assert lib.corrected_crossover(0.0, 0.001).case == free.case == "free"
    assert set(free.numbers) == set(v.numbers)  # the page's words of both cases find their glue
