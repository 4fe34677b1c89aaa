"""The three collectives pages (commbook.chapters.collectives): the verdicts they glue follow the numbers they are given, both ways."""

import pandas as pd
import pytest

from commbook.chapters.collectives import collectives_algorithms as alg
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


def test_bit_order_setting_and_cause_follow_the_core_count():
    assert "oversubscribed" in alg.bit_order_setting(4, 2)
    assert "a core of its own" in alg.bit_order_setting(4, 8)
    assert "share a core" in alg.bit_order_cause(4, 2)
    assert "share a core" not in alg.bit_order_cause(4, 4)


def test_large_sentence_names_the_algorithms_above_the_model():
    two = orf.large_sentence({"basic_linear": 0.9, "chain": 1.4, "binary_tree": 2.7})
    assert "for the chain and the binary tree at P = 48, the binary tree most (by a factor 2.7)" in two
    assert "for the chain at" in orf.large_sentence({"basic_linear": 0.9, "chain": 1.4, "binary_tree": 0.8})
    assert "at or below the model" in orf.large_sentence({"basic_linear": 0.9, "chain": 0.7, "binary_tree": 0.8})
