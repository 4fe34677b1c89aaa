"""The verdicts the collectives and Jacobi chapters glue into their prose: each sentence must
follow the numbers it is given, both ways."""

import math

import pandas as pd
import pytest

from commbook.chapters import collectives_algorithms as alg
from commbook.chapters import collectives_library as lib
from commbook.chapters import collectives_orfeo as orf
from commbook.chapters import jacobi as jac


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


def test_crossover_ingredients_and_oversubscribed_words_follow_the_measurements():
    assert lib.ingredients_words(1000, {"a": 1 << 20}).startswith("Two of the model's ingredients")
    assert lib.ingredients_words(1000, {"a": math.inf}).startswith("Two of the model's ingredients")
    assert lib.ingredients_words(1000, {"a": 1100, "b": math.inf}).startswith("The agreement is no proof")
    assert "push the crossover up" in lib.oversubscribed_words(math.inf, 1000)
    assert "cannot tell them apart" in lib.oversubscribed_words(256000, 1000)
    assert "256 times above" in lib.oversubscribed_words(256000, 1000)
    assert "did not move it" in lib.oversubscribed_words(1200, 1000)
    assert "4 times below" in lib.oversubscribed_words(250, 1000)


def test_primer_polls_and_send_mode_sentences_follow_the_run():
    from commbook.chapters import mpi_primer as primer
    from commbook.kernels import KernelOutput

    assert "at its first `MPI_Test`" in primer.polls_sentence(1)
    assert "up to 7 times" in primer.polls_sentence(7)

    def modes(ssend_small_ms, bsend_large_ms):
        table = pd.DataFrame(
            {
                "mode": ["synchronous", "synchronous", "buffered", "buffered"],
                "size_bytes": [8, 4194304, 8, 4194304],
                "return_ms": [ssend_small_ms, 200.6, 0.01, bsend_large_ms],
            }
        )
        return KernelOutput(meta={"delay_ms": "200"}, table=table, result="ok")

    usual = primer.ssend_bsend_sentence(modes(200.3, 1.9))
    assert "small message waited" in usual and "large message returned at once" in usual
    odd = primer.ssend_bsend_sentence(modes(0.01, 150.0))
    assert "did *not* wait" in odd and "copying it was slow here" in odd


def test_measuring_load_warmup_and_oversubscription_words():
    from commbook.chapters import measuring as M

    assert "nearly idle" in M.load_sentence("0.05", 2)
    assert "using the cores too" in M.load_sentence(0.8, 2)
    assert "competing" in M.load_sentence("3.5", 2)
    assert "could not be read" in M.load_sentence("n/a", 2)
    assert "oversubscribed" in M.oversubscription_setting(2, 4)
    assert "not oversubscription" in M.oversubscription_setting(8, 4)
    rest = [1.0] * 50
    assert "how many repetitions the slow start lasted" in M.warmup_sentence([10.0] * 3 + rest)
    assert "slow start" not in M.warmup_sentence([1.0] * 3 + rest)


def test_pingpong_reference_scope():
    from commbook.chapters import pingpong as pp

    here = {"cpu": "AMD EPYC", "cores": 2}
    assert pp.reference_scope({"cpu": "AMD EPYC", "cores": "2"}, here).case == "same_kind"
    v = pp.reference_scope({"cpu": "Intel Xeon", "cores": "2"}, here)
    assert v.case == "other_kind" and v.numbers["ref_cpu"] == "Intel Xeon" and v.numbers["cpu"] == "AMD EPYC"
    assert pp.reference_scope({"cpu": "AMD EPYC", "cores": "4"}, here).case == "other_kind"


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


def test_scaling_local_verdict_names_each_range_of_the_speedup():
    from commbook.chapters import scaling as S

    assert "less than twice" in S.local_verdict(1.64, 0.79, "1.15")
    assert "far from twice" in S.local_verdict(1.3, 0.9, "1.0")
    assert "close to the ideal" in S.local_verdict(2.1, 0.97, "0.1")
    assert "more than the ideal" in S.local_verdict(2.5, 1.0, "0.1")
    slower = S.local_verdict(0.8, 0.7, "0.2")
    assert "*slower*" in slower and "where other work holds a core" in slower
    assert S.serial_fraction(44.7, 48) == pytest.approx(0.00157, abs=1e-5)
