"""Collective cost models: schedules against closed forms, pipeline optimum, crossovers,
latency-map models (Loletti's eqs. 1-3), fits and the `predict collective` command."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from commbook import orfeo
from commbook import topology as T
from commbook.cli import main
from commbook.models import collective_costs as costs
from commbook.models import collective_schedules as schedules
from commbook.models import latency_maps

LAM, B, G = 1.7, 6000.0, 2e-4


def test_binomial_bcast_is_ceil_log2_p_steps():
    for P in range(1, 130):
        for n in (0, 8, 65536):
            expect = math.ceil(math.log2(P)) * (LAM + n / B) if P > 1 else 0.0
            assert costs.predict("bcast", "binomial", P, n, LAM, B) == pytest.approx(expect)


def test_linear_and_chain_are_p_minus_one_messages():
    for P in (2, 3, 10, 48):
        assert costs.predict("bcast", "linear", P, 1e5, LAM, B) == pytest.approx((P - 1) * (LAM + 1e5 / B))
        assert costs.predict("bcast", "chain", P, 1e5, LAM, B) == pytest.approx((P - 1) * (LAM + 1e5 / B))
        assert costs.predict("gather", "linear", P, 64, LAM, B) == pytest.approx((P - 1) * (LAM + 64 / B))


def test_recursive_doubling_folds_the_ranks_beyond_a_power_of_two():
    # P' = 2^floor(log2 P); fold in (send + combine) and fold out (send): the closed form of
    # COSTS holds for P = 2^k only, this is the rest, written out by hand
    for P in (3, 5, 6, 7, 12, 33):
        k = math.log2(1 << (P.bit_length() - 1))
        assert costs.coefficients("allreduce", "recursive_doubling", P) == pytest.approx((k + 2, k + 2, k + 1)), P


def test_binomial_gather_messages_grow_up_the_tree():
    steps = schedules.schedule("gather", "binomial", 16)
    assert [sorted({m.frac for m in s}) for s in steps] == [[1.0], [2.0], [4.0], [8.0]]
    assert [len(s) for s in steps] == [8, 4, 2, 1]
    # P = 6: the last subtree is cut short (rank 4 holds blocks 4, 5 only)
    steps = schedules.schedule("gather", "binomial", 6)
    assert {(m.src, m.dst, m.frac) for s in steps for m in s} == {(1, 0, 1), (3, 2, 1), (5, 4, 1), (2, 0, 2), (4, 0, 2)}
    assert costs.predict("gather", "binomial", 6, 100, LAM, B) == pytest.approx(3 * LAM + (1 + 2 + 2) * 100 / B)


def test_recursive_doubling_folds_non_powers_of_two():
    n = 1e4
    for P in (3, 5, 6, 7, 12):
        Pp = 2 ** int(math.log2(P))
        expect = math.log2(Pp) * (LAM + n / B + n * G) + 2 * (LAM + n / B) + n * G
        assert costs.predict("allreduce", "recursive_doubling", P, n, LAM, B, G) == pytest.approx(expect)
    steps = schedules.schedule("allreduce", "recursive_doubling", 6)
    assert {(m.src, m.dst) for m in steps[0]} == {(4, 0), (5, 1)}  # fold in
    assert {(m.src, m.dst) for m in steps[-1]} == {(0, 4), (1, 5)}  # fold out


def test_binary_tree_schedule():
    steps = schedules.schedule("bcast", "binary_tree", 7)
    assert [[(m.src, m.dst) for m in s] for s in steps] == [[(0, 1)], [(0, 2), (1, 3)], [(1, 4), (2, 5)], [(2, 6)]]
    assert sum(len(s) for s in schedules.schedule("bcast", "binary_tree", 48)) == 47


@pytest.mark.parametrize("P", [2, 3, 4, 9, 33, 100])
@pytest.mark.parametrize("n", [1, 100, 65536, 4e6])
def test_pipeline_optimum_equals_brute_force(P, n):
    k = costs.optimal_segments(P, n, LAM, B)
    brute = min(range(1, 5000), key=lambda j: costs.pipeline_time(P, n, LAM, B, j))
    assert costs.pipeline_time(P, n, LAM, B, k) == pytest.approx(costs.pipeline_time(P, n, LAM, B, brute))
    assert costs.predict("bcast", "pipeline", P, n, LAM, B) == pytest.approx(costs.pipeline_time(P, n, LAM, B, k))
    # and the schedule with k segments is the formula (P-2+k)(lam + n/k b)
    assert costs.predict("bcast", "pipeline", P, n, LAM, B, segments=7) == pytest.approx(
        (P - 2 + 7) * (LAM + n / 7 / B)
    )


def test_fastest_bcast_crossover_binomial_to_scatter_allgather():
    P = 32
    # equal when log P (lam + n beta) = (log P + P - 1) lam + 2 (P-1)/P n beta
    n_cross = (P - 1) * LAM * B / (math.log2(P) - 2 * (P - 1) / P)
    t_bin = lambda n: costs.predict("bcast", "binomial", P, n, LAM, B)  # noqa: E731
    t_sag = lambda n: costs.predict("bcast", "scatter_allgather", P, n, LAM, B)  # noqa: E731
    assert t_bin(0.9 * n_cross) < t_sag(0.9 * n_cross) and t_bin(1.1 * n_cross) > t_sag(1.1 * n_cross)
    assert costs.fastest_algorithm("bcast", P, 8, LAM, B)[0] == "binomial"
    best, ranking = costs.fastest_algorithm("bcast", P, 2**24, LAM, B)
    assert best in ("scatter_allgather", "pipeline")
    assert ranking.t_us.is_monotonic_increasing and len(ranking) == len(schedules.ALGORITHMS["bcast"])
    assert ranking.set_index("algorithm").t_us["linear"] == pytest.approx((P - 1) * (LAM + 2**24 / B))


def test_fastest_allreduce_changes_with_size():
    P = 64
    assert costs.fastest_algorithm("allreduce", P, 8, LAM, B, G)[0] == "recursive_doubling"
    assert costs.fastest_algorithm("allreduce", P, 2**26, LAM, B, G)[0] in ("rabenseifner", "ring")
    # two ranks: linear and binomial are the same single message; the tie keeps table order
    best, ranking = costs.fastest_algorithm("gather", 2, 100, LAM, B)
    assert best == "linear" and ranking.t_us.iloc[0] == ranking.t_us.iloc[1]


def test_predict_vectorised_and_bad_input():
    n = np.array([0.0, 1e3, 1e6])
    assert costs.predict("bcast", "binomial", 8, n, LAM, B) == pytest.approx(3 * (LAM + n / B))
    assert costs.predict("bcast", "pipeline", 8, n, LAM, B).shape == (3,)
    with pytest.raises(ValueError, match="unknown collective 'alltoallv'; valid: bcast"):
        costs.predict("alltoallv", "ring", 4, 1, LAM, B)
    with pytest.raises(ValueError, match="unknown bcast algorithm 'ring'; valid: linear, chain"):
        costs.predict("bcast", "ring", 4, 1, LAM, B)
    with pytest.raises(ValueError, match="bandwidth b must be a positive"):
        costs.predict("bcast", "linear", 4, 1, LAM, 0.0)
    with pytest.raises(ValueError, match="lambda must be"):
        costs.predict("bcast", "linear", 4, 1, -1.0, B)
    with pytest.raises(ValueError, match="P \\(number of processes\\)"):
        costs.predict("bcast", "linear", 0, 1, LAM, B)
    with pytest.raises(ValueError, match="only for P = 2\\^k, not 6"):
        costs.closed_form("gather", "binomial", 6, 1, LAM, B)
    with pytest.raises(ValueError, match="need a topology"):
        costs.predict("bcast", "linear", 4, 1, LAM, B, t_h=0.1)


def test_topology_adds_hops_beyond_a_neighbour():
    R, t_h, n = T.ring(8), 0.3, 1000.0
    expect = sum(LAM + n / B + t_h * (min(i, 8 - i) - 1) for i in range(1, 8))
    assert costs.predict("bcast", "linear", 8, n, LAM, B, topology=R, t_h=t_h) == pytest.approx(expect)
    # recursive doubling is contention-free on a hypercube, not on a ring
    H = T.hypercube(8)
    plain = costs.predict("allreduce", "recursive_doubling", 8, n, LAM, B)
    assert costs.predict(
        "allreduce", "recursive_doubling", 8, n, LAM, B, topology=H, t_h=t_h, contention=True
    ) == pytest.approx(plain)
    on_ring = costs.predict("allreduce", "recursive_doubling", 8, n, LAM, B, topology=R, t_h=0.0, contention=True)
    # distances 1, 2, 4 on a ring of 8: 1, 2, 4 messages per link, each step its n beta x load
    assert on_ring == pytest.approx(3 * LAM + (1 + 2 + 4) * n / B)


def test_latency_map_models_of_the_report():
    P = 6
    idx = np.arange(P)
    L = 0.1 + 0.01 * np.add.outer(idx, idx)  # distinct entries, symmetric
    np.fill_diagonal(L, 0)
    # eq. 1: gamma * sum L[i, i+1]
    assert latency_maps.chain_latency_model(L, P) == pytest.approx(0.6 * sum(L[i, i + 1] for i in range(P - 1)))
    # eq. 2: sum L[i, 0]
    assert latency_maps.linear_gather_latency_model(L, P) == pytest.approx(sum(L[i, 0] for i in range(1, P)))
    # eq. 3: the binomial-tree edges (1,0) (3,2) (5,4) (2,0) (4,0)
    assert latency_maps.binomial_gather_latency_model(L, P) == pytest.approx(
        L[1, 0] + L[3, 2] + L[5, 4] + L[2, 0] + L[4, 0]
    )
    assert latency_maps.latency_map_time("gather", "binomial", L, P, how="steps") == pytest.approx(
        max(L[1, 0], L[3, 2], L[5, 4]) + L[2, 0] + L[4, 0]
    )  # distances 1, 2, 4: three steps
    with pytest.raises(ValueError, match="square matrix of at least 8"):
        latency_maps.latency_map_time("bcast", "chain", L, 8)
    with pytest.raises(ValueError, match="overlap"):
        latency_maps.latency_map_time("bcast", "chain", L, 4, overlap=1.5)


def test_latency_matrix_from_pair_tables():
    raw = pd.DataFrame(
        {
            "Core 1": [0, 0, 1, 0, 0, 1, 0],
            "Core 2": [1, 2, 2, 1, 2, 2, 1],
            "Message Size": [1, 1, 1, 8, 8, 8, 1],
            "Latency": [0.2, 0.4, 0.3, 9, 9, 9, 0.4],
        }
    )
    L = latency_maps.latency_matrix(raw)  # smallest size by default; (0, 1) measured twice -> mean
    np.testing.assert_allclose(L, [[0, 0.3, 0.4], [0.3, 0, 0.3], [0.4, 0.3, 0]])
    assert latency_maps.latency_matrix(raw, size_bytes=8)[0, 1] == 9
    L4 = latency_maps.latency_matrix(raw, P=4, fill=2.0)
    assert L4[3, 0] == 2.0 and L4[0, 1] == pytest.approx(0.3)
    with pytest.raises(ValueError, match=r"no latency for the pair \(0, 3\)"):
        latency_maps.latency_matrix(raw, P=4)
    tidy = pd.DataFrame(
        {
            "benchmark": ["latency"] * 3,
            "t_us": [0.2, 0.45, 0.5],
            "size_bytes": 0,
            "params": ["core_a=0;core_b=1", "core_a=0;core_b=2", "core_a=1;core_b=2"],
        }
    )
    assert latency_maps.latency_matrix(tidy)[2, 1] == 0.5
    with pytest.raises(ValueError, match="no first-core column"):
        latency_maps.latency_matrix(pd.DataFrame({"x": [1], "t_us": [1]}))
    bad = raw.assign(Latency=["0.2", "x", "1", "1", "1", "1", "1"])
    with pytest.raises(ValueError, match="is not two core ids and a time"):
        latency_maps.latency_matrix(bad)


def test_plateau_matrix_from_the_report_table():
    table = pd.DataFrame(
        {"core_from": [0] * 6, "core_to": [1, 4, 8, 16, 24, 48], "latency_us": [0.1, 0.2, 0.3, 0.5, 0.8, 2.0]}
    )
    L = latency_maps.plateau_latency_matrix(49, table)
    assert [L[0, j] for j in (1, 2, 4, 5, 16, 17, 30, 48)] == pytest.approx([0.1, 0.2, 0.2, 0.3, 0.5, 0.8, 2.0, 2.0])
    assert L[10, 12] == 0.2 and L[5, 5] == 0
    with pytest.raises(ValueError, match="reaches core 48, not 49"):
        latency_maps.plateau_latency_matrix(50, table)


def test_plateau_matrix_reads_the_seed_table():
    L = latency_maps.plateau_latency_matrix(48, orfeo.summary_table("core_latency_seed"))
    assert L[0, 1] == pytest.approx(0.10) and L[0, 47] == pytest.approx(2.0)


def test_class_latency_matrix():
    G = T.cluster(2, 2, 2)
    L = latency_maps.class_latency_matrix(G, T.place(G, 8), {"core": 0.2, "socket": 0.41, "node": 0.99})
    assert L[0].tolist() == pytest.approx([0, 0.2, 0.41, 0.41, 0.99, 0.99, 0.99, 0.99])
    with pytest.raises(ValueError, match=r"no latency given for link class\(es\) \['node'\]"):
        latency_maps.class_latency_matrix(G, T.place(G, 8), {"core": 0.2, "socket": 0.4})


def _synthetic(op, alg, lam, b, nps, sizes, noise=0.02, seed=1):
    rng = np.random.default_rng(seed)
    rows = [
        dict(np=P, size_bytes=n, t_us=costs.predict(op, alg, P, n, lam, b) * (1 + noise * rng.standard_normal()))
        for P in nps
        for n in sizes
    ]
    return pd.DataFrame(rows)


def test_fit_recovers_parameters_and_predicts_held_out_p():
    df = _synthetic("bcast", "binomial", 1.5, 8000.0, range(2, 33), [1, 64, 4096, 262144, 1 << 20])
    fit = costs.fit_algorithm(df, "bcast", "binomial", train="np")
    assert fit.lam_us == pytest.approx(1.5, rel=0.05) and fit.b_MBps == pytest.approx(8000, rel=0.05)
    assert fit.test_error < 0.05 and set(fit.table.split) == {"train", "test"}
    assert fit.table[fit.table.split == "train"].np.max() < fit.table[fit.table.split == "test"].np.min()
    assert fit.predict(16, 1024) == pytest.approx(costs.predict("bcast", "binomial", 16, 1024, fit.lam_us, fit.b_MBps))


def test_fit_with_the_wrong_model_predicts_badly():
    # data from a chain (linear in P) fitted with the binomial model (log P) on small P
    df = _synthetic("bcast", "chain", 1.5, 8000.0, range(2, 49), [8, 4096, 1 << 20], noise=0.0)
    fit = costs.fit_algorithm(df, "bcast", "binomial", train="np")
    assert fit.test_error > 0.3


def test_fit_pipeline_with_segment_size_and_errors():
    rows = [
        dict(np=P, size_bytes=n, t_us=costs.predict("bcast", "pipeline", P, n, 2.0, 5000.0, segment_bytes=8192))
        for P in range(2, 25)
        for n in (1024, 65536, 1 << 20)
    ]
    fit = costs.fit_algorithm(pd.DataFrame(rows), "bcast", "pipeline", segment_bytes=8192, train="size")
    assert fit.lam_us == pytest.approx(2.0) and fit.b_MBps == pytest.approx(5000.0)
    with pytest.raises(ValueError, match="segment_bytes"):
        costs.fit_algorithm(pd.DataFrame(rows), "bcast", "pipeline")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['t_us'\]"):
        costs.fit_algorithm(pd.DataFrame({"np": [2], "size_bytes": [1]}), "bcast", "linear")
    one_size = pd.DataFrame({"np": [2, 2], "size_bytes": [8, 8], "t_us": [1.0, 1.1]})
    with pytest.raises(ValueError, match="cannot separate lambda from b"):
        costs.fit_algorithm(one_size, "bcast", "linear", train="all")


# ---- CLI -----------------------------------------------------------------------------


def test_cli_single_algorithm_json(capsys):
    rc = main(
        "predict collective --op bcast --algorithm binomial --np 16 --sizes 8,1K --lambda-us 1 "
        "--bandwidth-MBps 1000 --json".split()
    )
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert [r["t_us"] for r in out["predictions"]] == pytest.approx([4 * (1 + 8 / 1000), 4 * (1 + 1024 / 1000)])
    assert out["model"]["np"] == 16


def test_cli_ranks_all_algorithms_with_topology(capsys):
    rc = main(
        "predict collective --op allreduce --np 8 --sizes 1M --lambda-us 1 --bandwidth-MBps 1000 "
        "--topology ring:8 --hop-us 0.5 --contention".split()
    )
    out = capsys.readouterr().out
    assert rc == 0 and "model values" in out and "topology ring:8" in out
    lines = [l.split() for l in out.splitlines() if l.strip().startswith("1048576")]
    assert len(lines) == 4 and lines[0][-1] == "1"
    assert float(lines[0][-2]) <= float(lines[-1][-2])


@pytest.mark.parametrize(
    "args,message",
    [
        (["--op", "bcats"], "unknown collective 'bcats'; valid: bcast, gather"),
        (["--op", "gather", "--algorithm", "chain"], "unknown gather algorithm 'chain'; valid: linear, binomial"),
        (["--op", "bcast", "--topology", "ring:8"], "--topology needs --hop-us"),
        (["--op", "bcast", "--hop-us", "1"], "--hop-us needs --topology"),
        (["--op", "bcast", "--topology", "ring:2", "--hop-us", "1"], "p must be an integer >= 3"),
        (["--op", "bcast", "--sizes", "1Q"], "'1Q' is not a byte count"),
    ],
)
def test_cli_bad_input_one_line(capsys, args, message):
    base = ["predict", "collective", "--np", "4", "--lambda-us", "1", "--bandwidth-MBps", "100"]
    rc = main(base + args)
    err = capsys.readouterr().err
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1


def test_cli_needs_parameters(capsys):
    rc = main(["predict", "collective", "--op", "bcast", "--np", "4"])
    assert rc == 2 and "need --lambda-us and --bandwidth-MBps" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# alpha-beta-gamma coefficients, the cost table and the lower bounds


@pytest.mark.parametrize("key", sorted(costs.COSTS))
def test_cost_formulas_are_the_schedules(key):
    """The closed forms (COSTS) and the schedules are written separately and must agree."""
    op, alg = key
    cost = costs.COSTS[key]
    checked = 0
    for P in range(2, 66):
        A, Bc, Cc = costs.coefficients(op, alg, P)
        n, lam, b, g = 3000.0, 0.7, 900.0, 2e-4
        assert costs.predict(op, alg, P, n, lam, b, g) == pytest.approx(A * lam + Bc * n / b + Cc * n * g)
        if cost.holds(P):
            assert (A, Bc, Cc) == pytest.approx(cost.coefficients(P)), P
            for n in (0.0, 1.0, 4096.0, 3e6):
                assert costs.predict(op, alg, P, n, LAM, B, G) == pytest.approx(
                    costs.closed_form(op, alg, P, n, LAM, B, G), rel=1e-12, abs=1e-12
                ), (P, n)
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("key", sorted(costs.COSTS))
def test_no_algorithm_beats_its_lower_bound(key):
    op, alg = key
    for P in range(2, 40):
        bound = costs.LOWER_BOUNDS[op].coefficients(P)
        have = costs.coefficients(op, alg, P)
        assert all(h >= lb - 1e-12 for h, lb in zip(have, bound)), (P, have, bound)
    # and the bandwidth-optimal ones meet the bandwidth bound
    for P in (2, 4, 8, 16):
        assert costs.coefficients("allreduce", "ring", P)[1:] == pytest.approx(
            costs.LOWER_BOUNDS["allreduce"].coefficients(P)[1:]
        )
        assert costs.coefficients("allreduce", "rabenseifner", P)[1:] == pytest.approx(
            costs.LOWER_BOUNDS["allreduce"].coefficients(P)[1:]
        )


def test_cost_table_lists_every_algorithm_and_a_bound_per_operation():
    t = costs.cost_table()
    for op, algs in schedules.ALGORITHMS.items():
        assert set(t[t.operation == op].algorithm) == set(algs) | {"lower bound"}
    ring = t[(t.operation == "allreduce") & (t.algorithm == "ring")].iloc[0]
    assert (ring["latency × λ"], ring["bytes × nβ"], ring["reduced × nγ"]) == ("2(P−1)", "2(P−1)/P", "(P−1)/P")


def test_crossover_of_two_algorithms():
    # P = 2: ring pays one more latency and saves n gamma / 2: n* = lam / (gamma / 2)
    assert costs.crossover("allreduce", "recursive_doubling", "ring", 2, 1.0, 5000.0, 1e-4) == pytest.approx(2e4)
    assert costs.crossover("allreduce", "recursive_doubling", "ring", 2, 1.0, 5000.0) == float("inf")
    # P = 8, gamma = 0: rabenseifner 3 latencies more, saves (3 - 7/4) n beta
    n = costs.crossover("allreduce", "recursive_doubling", "rabenseifner", 8, 1.0, 5000.0)
    assert n == pytest.approx(3 * 1.0 / (1.25 / 5000.0))
    assert costs.predict("allreduce", "rabenseifner", 8, n, 1.0, 5000.0) == pytest.approx(
        costs.predict("allreduce", "recursive_doubling", 8, n, 1.0, 5000.0)
    )


def test_equation_3_corrected_is_the_critical_path():
    L = np.full((8, 8), 2.0)
    L[0, 4] = L[4, 0] = 10.0  # one slow link: the root's partner in the first level
    # eq. 3 as printed sums all 7 edges; the tree's levels run in parallel: 3 levels
    assert latency_maps.binomial_gather_latency_model(L, 8) == pytest.approx(6 * 2.0 + 10.0)
    assert latency_maps.binomial_gather_critical_path(L, 8) == pytest.approx(2.0 + 2.0 + 10.0)
    assert latency_maps.binomial_gather_critical_path(L, 2) == latency_maps.binomial_gather_latency_model(L, 2)


def test_coefficient_table_for_explorers():
    t = costs.coefficient_table([1, 2, 5, 8], ["allreduce"])
    assert set(t.algorithm) == set(schedules.ALGORITHMS["allreduce"]) and len(t) == 4 * len(
        schedules.ALGORITHMS["allreduce"]
    )
    row = t[(t.algorithm == "ring") & (t.np == 8)].iloc[0]
    assert (row.latency, row.bytes, row.reduce) == pytest.approx((14, 14 / 8, 7 / 8))
    assert (t[t.np == 1][["latency", "bytes", "reduce"]] == 0).all().all()


def test_allgather_alltoall_reduce_scatter_known_costs():
    # (A, B, C): t = A lam + B n beta + C n gamma, read off the schedules
    assert costs.coefficients("allgather", "ring", 4) == (3, 3, 0)
    assert costs.coefficients("allgather", "bruck", 5) == (3, 4, 0)  # blocks 1, 2, then the last 1
    assert costs.coefficients("allgather", "recursive_doubling", 8) == (3, 7, 0)
    # Open MPI falls back to Bruck when P is not a power of two: so does the model
    assert costs.coefficients("allgather", "recursive_doubling", 6) == costs.coefficients("allgather", "bruck", 6)
    assert costs.coefficients("alltoall", "pairwise", 6) == (5, 5, 0)
    assert costs.coefficients("alltoall", "bruck", 8) == (3, 12, 0)  # 4 blocks per step, 3 steps
    assert costs.coefficients("alltoall", "bruck", 6) == (3, 3 + 2 + 2, 0)  # blocks with bit 1, 2, 4 set
    assert costs.coefficients("reduce_scatter", "ring", 4) == pytest.approx((3, 0.75, 0.75))
    assert costs.coefficients("reduce_scatter", "recursive_halving", 8) == pytest.approx((3, 7 / 8, 7 / 8))


def test_bruck_allgather_meets_its_lower_bound_and_bruck_alltoall_only_in_latency():
    for P in range(2, 70):
        lb_ag = costs.LOWER_BOUNDS["allgather"].coefficients(P)
        assert costs.coefficients("allgather", "bruck", P) == pytest.approx(lb_ag)
        lb = costs.LOWER_BOUNDS["alltoall"].coefficients(P)
        A, B, _ = costs.coefficients("alltoall", "bruck", P)
        assert A == lb[0] and B >= lb[1]
        assert costs.coefficients("alltoall", "pairwise", P)[1] == lb[1]  # bandwidth-optimal
    # the price of few steps: at P = 64 Bruck moves 192 blocks where 63 are needed
    assert costs.coefficients("alltoall", "bruck", 64)[1] == 192


def test_alltoall_crossover_bruck_to_pairwise():
    # equal when 5 lam + 80 n/b = 31 lam + 31 n/b: n = 26 lam b / 49 (P = 32)
    lam, b = 2.0, 5000.0
    assert costs.crossover("alltoall", "bruck", "pairwise", 32, lam, b) == pytest.approx(26 * lam * b / 49)
    assert costs.fastest_algorithm("alltoall", 32, 8, lam, b)[0] == "bruck"
    assert costs.fastest_algorithm("alltoall", 32, 1 << 20, lam, b)[0] == "pairwise"
