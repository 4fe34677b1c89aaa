"""Ring: the kernel under mpiexec (P = 1..4, both variants, padding, injected errors), the CLI
failure path, and the placement-driven model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from commbook import kernels, orfeo
from commbook.models.hockney import Hockney
from commbook.models.ring import Placement, fit_ring, links_from_table, ring_time, step_cost

QUICK = {"iterations": 5, "repetitions": 2}

# ---------------------------------------------------------------------------------------
# Kernel


@pytest.mark.mpi
@pytest.mark.parametrize("np_", [1, 2, 3, 4])
@pytest.mark.parametrize("nonblocking", [0, 1])
def test_ring_validates_for_any_P(np_, nonblocking):
    # 4:64 also sends messages with padding, which the validated ring checks byte by byte
    out = kernels.run_mpiexec("ring", np_, {"size": "4:64", "nonblocking": nonblocking, **QUICK}, timeout=90)
    assert out.ok
    assert list(out.table["size_bytes"]) == [4, 8, 16, 32, 64]
    assert (out.table["np"] == np_).all()
    assert out.meta["algorithm"] == ("nonblocking" if nonblocking else "blocking")
    t = out.table
    assert (t.t_min_us <= t.t_median_us).all() and (t.t_median_us <= t.t_max_us).all()
    assert np.allclose(t.t_step_us, t.t_median_us / np_, rtol=1e-3, atol=1e-4)
    tidy = out.to_tidy(machine="test")
    assert set(tidy.benchmark) == {"ring"} and "t_step_us=" in tidy.params.iloc[0]


@pytest.mark.mpi
@pytest.mark.parametrize("np_", [2, 3])
def test_the_students_ssend_ring_validates(np_):
    # a student's exchange: MPI_Ssend in odd/even order (rank 0 of an odd ring alternates), each
    # ring timed alone up to the end of a closing barrier
    opts = {"size": "4:64", "ssend": 1, "barrier-per-ring": 1, **QUICK}
    out = kernels.run_mpiexec("ring", np_, opts, timeout=90)
    assert out.ok and list(out.table["size_bytes"]) == [4, 8, 16, 32, 64]
    assert "MPI_Ssend" in out.meta["exchange"] and "closing one included" in out.meta["time"]


def _run_raw(np_, args):
    exe = kernels.compile_kernel("ring", "executable")
    return kernels.mpiexec_raw(np_, [str(exe), *args], timeout=90)


@pytest.mark.mpi
@pytest.mark.parametrize(
    "np_,inject,size,what",
    [
        (3, 1, "4", "value from the left is"),
        (2, 2, "64", "padding byte 63"),
        (1, 1, "4", "value from the left is"),
    ],
)
def test_injected_error_exits_2_on_every_path(np_, inject, size, what):
    proc = _run_raw(np_, ["--size", size, "--inject-error", str(inject), "--iterations", "2", "--repetitions", "1"])
    assert proc.returncode == 2
    assert "# result: VALIDATION FAILED" in proc.stdout
    assert what in proc.stderr  # the rank and the step are named


@pytest.mark.mpi
def test_injected_error_raises_validation_failed():
    with pytest.raises(kernels.ValidationFailed, match="VALIDATION FAILED"):
        kernels.run_mpiexec("ring", 2, {"inject-error": 1, **QUICK}, timeout=60)


@pytest.mark.mpi
@pytest.mark.parametrize(
    "opts,msg",
    [
        ({"size": 2}, "below 4 bytes"),
        ({"nonblocking": 2}, "--nonblocking 2 is not a whole number in [0, 1]"),
        ({"sizes": 4}, "unknown option '--sizes'"),
        ({"ssend": 1, "nonblocking": 1}, "--ssend 1 is a blocking exchange"),
    ],
)
def test_bad_options_are_named(opts, msg):
    with pytest.raises(kernels.KernelFailed) as e:
        kernels.run_mpiexec("ring", 1, opts, timeout=60)
    assert not isinstance(e.value, kernels.ValidationFailed)
    assert msg in str(e.value)


@pytest.mark.mpi
def test_cli_measure_ring_fails_loudly_on_validation(capsys, tmp_path):
    from commbook.cli import main

    out = tmp_path / "ring.csv"
    rc = main(
        [*"measure ring --np 2 --inject-error 1 --iterations 2 --repetitions 1 --quiet".split(), "--out", str(out)]
    )
    assert rc != 0
    assert "VALIDATION FAILED" in capsys.readouterr().err
    assert not out.exists()  # nothing written for a failed run


# ---------------------------------------------------------------------------------------
# Model

THIN = Placement(cores_per_socket=12, sockets_per_node=2)  # ORFEO THIN, --map-by core
UCX = {"core": Hockney(0.20, 6200), "socket": Hockney(0.41, 5420), "node": Hockney(0.99, 12090)}


def test_thin_boundaries_predict_the_bump_at_25():
    assert THIN.boundaries(48) == [(1, "self"), (2, "core"), (13, "socket"), (25, "node")]
    assert Placement(12, 2, "socket").boundaries(48) == [(1, "self"), (2, "socket"), (25, "node")]
    assert Placement(12, 2, "node", nodes=2).boundaries(10) == [(1, "self"), (2, "node")]


def test_link_classes_of_a_ring_that_spans_two_nodes():
    cls = THIN.link_classes(26)
    assert cls[11] == "socket"  # rank 11 (socket 0) -> 12 (socket 1)
    assert cls[23] == "node" and cls[25] == "node"  # 23 -> 24 and the wrap 25 -> 0
    assert cls.count("node") == 2 and cls.count("socket") == 1
    assert THIN.locations(25)[24] == (1, 0)


def test_ring_time_by_hand():
    n = 4
    t = ring_time([1, 12, 13, 24, 25], n, UCX, THIN)
    hand = [
        2 * 1 * (0.20 + n / 6200),
        2 * 12 * (0.20 + n / 6200),
        2 * 13 * (0.41 + n / 5420),
        2 * 24 * (0.41 + n / 5420),
        2 * 25 * (0.99 + n / 12090),
    ]
    assert np.allclose(t, hand)
    # non-blocking overlap: one message per step
    assert ring_time(25, n, UCX, THIN, messages_per_step=1)[0] == pytest.approx(hand[-1] / 2)


def test_dearest_link_is_chosen_by_cost_not_by_name():
    # a big message over a fast-latency but slow-bandwidth socket link costs more than the node
    links = {"core": Hockney(0.2, 10000), "socket": Hockney(0.3, 100), "node": Hockney(1.0, 10000)}
    cost, cls = step_cost(30, 1_000_000, links, THIN)
    assert cls == "socket" and cost == pytest.approx(0.3 + 10000)


def test_model_refuses_what_it_cannot_price():
    with pytest.raises(ValueError, match="link class 'node'"):
        ring_time(25, 4, {"core": Hockney(0.2, 1e4), "socket": Hockney(0.4, 1e4)}, THIN)
    with pytest.raises(ValueError, match="map_by='node' needs the number of nodes"):
        Placement(12, 2, "node")
    with pytest.raises(ValueError, match="do not fit on 1 nodes"):
        Placement(12, 2, "node", nodes=1).link_classes(25)
    with pytest.raises(ValueError, match="P must be whole numbers"):
        ring_time(0, 4, UCX, THIN)
    with pytest.raises(ValueError, match="cores_per_socket"):
        Placement(0, 2)


def test_fit_recovers_known_latencies():
    P = np.arange(1, 49)
    truth = {"self": 0.15, "core": 0.6, "socket": 0.65, "node": 0.72}
    t = np.array([2 * p * truth[THIN.dearest_class(p)] for p in P])
    f = fit_ring(P, t, THIN)
    assert f.lambda_us == pytest.approx(truth)
    assert f.points == {"self": 1, "core": 11, "socket": 12, "node": 24}
    assert f.rms_relative_error < 1e-9
    assert np.allclose(f.predict(P, THIN), t)
    # noise changes the numbers; the fit must notice
    noisy = t * (1 + 0.1 * np.sin(P))
    assert fit_ring(P, noisy, THIN).rms_relative_error > 0.01


def test_fit_refuses_bad_times():
    with pytest.raises(ValueError, match="positive"):
        fit_ring([1, 2], [1.0, -1.0], THIN)
    with pytest.raises(ValueError, match="equal-length"):
        fit_ring([1, 2], [1.0], THIN)


def test_links_from_the_orfeo_seed_table():
    links = links_from_table(orfeo.summary_table("pingpong_seed"), "orfeo-thin", "ucx", library="Open MPI")
    assert links["node"].lambda_us == pytest.approx(0.99)
    assert links["core"].lambda_us == pytest.approx(0.20)
    # the report's model at P = 25: 2 * 25 * 0.99 us plus a negligible 4-byte transfer
    assert ring_time(25, 4, links, THIN)[0] == pytest.approx(49.5, rel=1e-3)
    with pytest.raises(ValueError, match="no ping-pong rows"):
        links_from_table(pd.DataFrame({"machine": [], "transport": [], "mapping": []}), "x", "y")


def test_orfeo_thin_links_and_placement_are_the_seed_tables():
    """orfeo.links / orfeo.placement: the one way every chapter builds ORFEO's THIN ring."""
    links = orfeo.links("ucx")
    assert links == links_from_table(orfeo.summary_table("pingpong_seed"), "orfeo-thin", "ucx", library="Open MPI")
    assert orfeo.link_parameters()["node"] == (links["node"].lambda_us, links["node"].bandwidth_MBps)
    assert orfeo.placement("orfeo-thin") == THIN
    assert orfeo.placement("orfeo-thin", map_by="socket").boundaries(48) == [(1, "self"), (2, "socket"), (25, "node")]
    # Open MPI 4's mpirun with no --map-by: by core up to two ranks, by socket above
    assert orfeo.placement("orfeo-thin", map_by="openmpi4").boundaries(48) == [
        (1, "self"),
        (2, "core"),
        (3, "socket"),
        (25, "node"),
    ]


def test_each_students_rings_are_priced_as_his_job_placed_them():
    """The first student's job named no mapping (Open MPI 4.1's default), the second --map-by core:
    at P = 3 the first's ring pays the socket link, the second's the core link."""
    from commbook.chapters.ring import as_placed

    links = orfeo.links("ucx")
    first, second = as_placed(THIN, "matteoscorcia/ring"), as_placed(THIN, "francesc0rtu/ring")
    assert second == THIN
    assert ring_time(3, 4, links, first)[0] == pytest.approx(2 * 3 * float(links["socket"].time_us(4)[0]))
    assert ring_time(3, 4, links, second)[0] == pytest.approx(2 * 3 * float(links["core"].time_us(4)[0]))
    assert ring_time(2, 4, links, first)[0] == ring_time(2, 4, links, second)[0]


# ---------------------------------------------------------------------------------------
# Widget


# ---------------------------------------------------------------------------------------
# The chapter's claims on the ORFEO data


def test_orfeo_ring_bump_is_where_the_placement_says():
    raw, caption = orfeo.load("matteoscorcia/ring")  # the derived table the chapter draws
    assert "data/orfeo/derived/" in caption  # names the derived table it read
    g = raw.sort_values("np")
    steps = np.diff(g.t_us.to_numpy())
    assert int(g.np.to_numpy()[1:][np.argmax(steps)]) == 25 == THIN.boundaries(48)[-1][0]
    f = fit_ring(g.np, g.t_us, THIN)
    assert f.lambda_us["node"] == pytest.approx(0.73, abs=0.05)  # the report's "true" λ
    assert f.lambda_us["core"] == pytest.approx(f.lambda_us["socket"], rel=0.05)  # no socket step
    assert f.lambda_us["core"] > 2 * 0.20  # well above the core-to-core ping-pong latency
