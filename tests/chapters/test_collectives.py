"""The three collectives pages (commbook.chapters.collectives): the verdicts they glue follow the numbers they are given, both ways."""

import math

import pandas as pd
import pytest

from commbook.chapters.collectives import collectives_algorithms as alg
from commbook.chapters.collectives import collectives_library as lib
from commbook.chapters.collectives import collectives_orfeo as orf


def test_ratio_words_follow_the_ratio():
    assert alg.ratio_words(1.05) == "the same time within 10 %"
    assert alg.ratio_words(1.35) == "1.35 times slower"
    assert alg.ratio_words(0.5) == "2.00 times faster"
    with pytest.raises(ValueError):
        alg.ratio_words(0)


def test_bit_order_verdict_says_what_the_ratio_says():
    same = pd.DataFrame({"ratio_of_minima": [0.98, 1.03, 1.01]})
    slower = pd.DataFrame({"ratio_of_minima": [1.4, 1.5, 1.3]})
    assert "same time" in alg.bit_order_verdict(same)
    assert "low-to-high order was slower" in alg.bit_order_verdict(slower)


def _p2_table(library_8=0.30, seg_cost=4.0):
    sizes = [0, 8, 1 << 22]
    by = pd.DataFrame({a: [0.1, 0.3, 400.0] for a in ["linear", "chain", "binary", "binomial"]}, index=sizes)
    by["library"] = [0.05, library_8, 400.0]
    by["pipeline"] = [0.5, 0.5, 400.0 + 255 * seg_cost]
    by["scatter-allgather"] = [0.6, 0.6, 450.0]
    return by


def test_p2_facts_judge_the_library_and_the_segments():
    same = lib.p2_bcast_facts(_p2_table(), lam=0.3)
    assert same["lib_words"].startswith("they cost what the library's costs")
    assert "far more than the one λ" in same["seg_words"]
    dearer = lib.p2_bcast_facts(_p2_table(library_8=0.6, seg_cost=0.3), lam=0.3)
    assert "2.00 times slower" in dearer["lib_words"]
    assert "close to the one λ" in dearer["seg_words"]
    assert same["takeaway_words"].startswith("the library's is no faster")
    assert dearer["takeaway_words"].startswith("the library's is no faster")
    faster = lib.p2_bcast_facts(_p2_table(library_8=0.1), lam=0.3)
    assert faster["takeaway_words"].startswith("the library's was 3.00 times faster at 8 B")


def test_crossover_discussion_tells_a_miss_from_a_hit():
    assert "190 to 380 times above" in lib.crossover_discussion(5520, {"a": 1 << 20, "b": 2 << 20})
    assert "within a factor 1.5" in lib.crossover_discussion(1000, {"a": 1500, "b": 1200})
    assert "Neither" in lib.crossover_discussion(1000, {"a": math.inf})


def test_logp_gap_from_a_slope():
    # mean over ranks grows by g/2 per process: g = 0.1 us on cores, 0.3 us across nodes
    rows = [(P, 0.2 + 0.05 * P) for P in range(2, 13, 2)] + [(P, 1.0 + 0.15 * P) for P in range(26, 49, 2)]
    t = pd.DataFrame(rows, columns=["np", "t_us"])
    gaps = lib.logp_gaps(t, {"core": (0.25, 1e4), "node": (1.0, 1e4)})
    assert gaps.loc["core", "g from the slope (µs)"] == pytest.approx(0.1)
    assert gaps.loc["node", "g from the slope (µs)"] == pytest.approx(0.3)
    assert "less than one λ" in lib.logp_words(gaps, 0.4, 0.9)
    assert "no closer" in lib.logp_words(gaps, 0.9, 0.4)


def test_process_count_ranges():
    assert orf._runs([2, 4, 6, 10, 18, 20]) == "2-6, 10, 18-20"
    assert orf._runs([]) == "none"


def test_chain_verdict_on_the_orfeo_data():
    from commbook import fit
    from commbook.chapters import collectives as chapter

    bcast, _ = chapter.orfeo_or_empty("giuliofantuzzi/bcast")
    if not len(bcast):
        pytest.skip("the derived ORFEO broadcast table is not in this checkout")
    params = fit.calibrate_link_classes(bcast)
    words = orf.chain_verdict(bcast[bcast.mapping == "core"], params)
    # the single chain is closer at 1 MiB for P <= 24, the four chains at 1 B and P = 48
    assert "at 1 MiB" in words and "the single chain at P = 2-" in words.split("at 1 MiB")[1]
    assert "48" in words.split("at 1 MiB")[0].split("the single chain")[0]


def test_crossover_ingredients_and_oversubscribed_words_follow_the_measurements():
    assert lib.ingredients_words(1000, {"a": 1 << 20}).startswith("Two of the model's ingredients")
    assert lib.ingredients_words(1000, {"a": math.inf}).startswith("Two of the model's ingredients")
    assert lib.ingredients_words(1000, {"a": 1100, "b": math.inf}).startswith("The agreement is no proof")
    assert "push the crossover up" in lib.oversubscribed_words(math.inf, 1000)
    assert "cannot tell them apart" in lib.oversubscribed_words(256000, 1000)
    assert "256 times above" in lib.oversubscribed_words(256000, 1000)
    assert "did not move it" in lib.oversubscribed_words(1200, 1000)
    assert "4 times below" in lib.oversubscribed_words(250, 1000)


def test_bit_order_setting_and_cause_follow_the_core_count():
    assert "oversubscribed" in alg.bit_order_setting(4, 2)
    assert "a core of its own" in alg.bit_order_setting(4, 8)
    assert "share a core" in alg.bit_order_cause(4, 2)
    assert "share a core" not in alg.bit_order_cause(4, 4)


def test_eager_words_place_the_segment():
    assert "above Open MPI" in lib.eager_words(4096, 16384)
    assert "every segment goes through the rendezvous" in lib.eager_words(4096, 16384)
    assert "sent eagerly" in lib.eager_words(65536, 16384)
    assert lib.eager_words(None).startswith("perhaps above")


def test_crossover_ingredients_follow_the_measured_costs():
    assert "far more" in lib.p2_bcast_facts(_p2_table(), lam=0.3)["seg_words"]
    assert "not one λ" in lib.segment_lambda_words(14)
    assert "close to the model's one λ" in lib.segment_lambda_words(1.2)
    assert "1.3 times faster" in lib.cache_add_words(1.3, "16 KiB")
    assert "same speed" in lib.cache_add_words(1.05, "16 KiB")
    assert "1.2 times slower" in lib.cache_add_words(1 / 1.2, "16 KiB")
    assert lib.ingredients_words(1000, {"a": math.inf}, 14, 1.3).startswith("Two of the model's ingredients")
    assert lib.ingredients_words(1000, {"a": math.inf}, 14, 1.0).startswith("One of the model's two ingredients")
    assert lib.ingredients_words(1000, {"a": math.inf}, 1.2, 1.0).startswith("Both of the model's ingredients held")
    assert "one of its two ingredients" in lib.ingredients_words(1000, {"a": 1100}, 1.2, 2.0)
    assert "within this page's tolerances" in lib.ingredients_words(1000, {"a": 1100}, 1.2, 1.0)


def test_p4_setting_and_crossover_words_follow_the_core_count():
    assert "oversubscribed" in lib.p4_setting_words(2)
    assert "a core of its own" in lib.p4_setting_words(8)
    assert "context switches" not in lib.oversubscribed_words(256000, 1000, oversubscribed=False)
    assert "do not carry over" in lib.oversubscribed_words(256000, 1000, oversubscribed=False)
    assert "carry over" in lib.oversubscribed_words(1200, 1000, oversubscribed=False)
    assert "context switches" not in lib.oversubscribed_words(math.inf, 1000, oversubscribed=False)


def test_large_sentence_names_the_algorithms_above_the_model():
    two = orf.large_sentence({"basic_linear": 0.9, "chain": 1.4, "binary_tree": 2.7})
    assert "for the chain and the binary tree at P = 48, the binary tree most (by a factor 2.7)" in two
    assert "for the chain at" in orf.large_sentence({"basic_linear": 0.9, "chain": 1.4, "binary_tree": 0.8})
    assert "at or below the model" in orf.large_sentence({"basic_linear": 0.9, "chain": 0.7, "binary_tree": 0.8})


def test_p2_zero_words_follow_the_size_zero_times():
    assert lib.p2_bcast_facts(_p2_table(), lam=0.3)["zero_words"].startswith("At size 0 the library was faster")
    slow = _p2_table()
    slow.loc[0, "library"] = 0.2
    assert "was not faster" in lib.p2_bcast_facts(slow, lam=0.3)["zero_words"]
