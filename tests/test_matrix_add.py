"""Matrix addition: the kernel under mpiexec (P = 1..4, 1-D/2-D/3-D grids, odd sizes, injected
error), its decomposition against the model's, and the model by hand."""

from __future__ import annotations

import math

import pytest

from commbook import kernels
from commbook.models import matrix as M
from commbook.models.hockney import Hockney

# ---------------------------------------------------------------------------------------
# Kernel


@pytest.mark.mpi
@pytest.mark.parametrize(
    "np_,grid,shape,expect_grid",
    [
        (1, "1x1x1", "7x5x3", "1x1x1"),
        (2, "1x2x1", "7x5x3", "1x2x1"),
        (3, "3x1x1", "13x11x9", "3x1x1"),
        (3, "1x1x3", "13x11x9", "1x1x3"),
        (4, "2x2x1", "13x11x9", "2x2x1"),
        (4, "2x1x2", "5x3x7", "2x1x2"),
        (4, "0x0x0", "9x9x9", None),  # MPI_Dims_create chooses
    ],
)
def test_matrix_add_validates_with_uneven_blocks(np_, grid, shape, expect_grid):
    out = kernels.run_mpiexec("matrix_add", np_, {"grid": grid, "shape": shape, "repetitions": 2}, timeout=90)
    assert out.ok
    row = out.table.iloc[0]
    got = str(row["grid"])
    if expect_grid:
        assert got == expect_grid
    assert math.prod(int(x) for x in got.split("x")) == np_
    assert row["size_bytes"] == M.elements(shape) * 8
    # the kernel's decomposition and the model's agree on the largest block
    assert row["max_block"] == M.block_sizes(shape, got).max()
    phases = row["t_scatter_median_us"] + row["t_add_median_us"] + row["t_gather_median_us"]
    assert phases <= row["t_max_us"] * 1.001  # total includes every phase (and the barriers)
    assert row["t_serial_add_us"] > 0


def _run_raw(np_, args):
    exe = kernels.compile_kernel("matrix_add", "executable")
    return kernels.mpiexec_raw(np_, [str(exe), *args], timeout=90)


@pytest.mark.mpi
@pytest.mark.parametrize("np_,grid", [(1, "1x1x1"), (3, "1x3x1")])
def test_injected_error_is_found_and_exits_2(np_, grid):
    proc = _run_raw(np_, ["--grid", grid, "--shape", "5x7x3", "--inject-error", "1", "--repetitions", "1"])
    assert proc.returncode == 2
    assert "# result: VALIDATION FAILED: C = A + B is wrong" in proc.stdout
    # the last rank's last element: C[4][6][2] for both grids
    assert "C[4][6][2]" in proc.stderr


@pytest.mark.mpi
def test_cli_measure_matrix_add_fails_loudly(capsys):
    from commbook.cli import main

    rc = main(
        ["measure", "matrix-add", "--np", "2", "--grid", "2x1x1", "--shape", "5x5x5", "--inject-error", "1", "--quiet"]
    )
    assert rc != 0
    assert "VALIDATION FAILED" in capsys.readouterr().err


@pytest.mark.mpi
@pytest.mark.parametrize(
    "np_,opts,msg",
    [
        (2, {"grid": "2x2x1"}, "--grid 2x2x1 is not a grid of 2 processes"),
        (2, {"grid": "3x0x1"}, "is not a grid of 2 processes"),
        (2, {"grid": "2x1x1", "shape": "1x4x4"}, "splits axis 0 (extent 1) into 2 parts"),
        (1, {"shape": "0x4x4"}, "--shape 0x4x4: every extent must be at least 1"),
        (1, {"grid": "axb"}, "--grid 'axb' is not of the form AxBxC"),
    ],
)
def test_bad_input_is_named(np_, opts, msg):
    with pytest.raises(kernels.KernelFailed) as e:
        kernels.run_mpiexec("matrix_add", np_, opts, timeout=60)
    assert not isinstance(e.value, kernels.ValidationFailed)
    assert msg in str(e.value)


# ---------------------------------------------------------------------------------------
# Model


def test_split_and_blocks_match_the_kernel_rule():
    assert M.split(10, 3) == [4, 3, 3]
    assert M.split(7, 7) == [1] * 7
    with pytest.raises(ValueError, match="non-empty"):
        M.split(2, 3)
    b = M.block_sizes("5x3x7", "2x1x2")
    # x: 3,2  z: 4,3 -> rank order (x, z) = (0,0),(0,1),(1,0),(1,1)
    assert list(b) == [3 * 3 * 4, 3 * 3 * 3, 2 * 3 * 4, 2 * 3 * 3]
    assert b.sum() == 105


def test_linear_scatter_gather_by_hand():
    link = Hockney(1.0, 1000.0)  # 1 us, 1000 B/us
    t = M.predict("40x10x10", "4x1x1", link, add_rate=100.0)
    # each matrix: root keeps 1000 of 4000 elements and sends 3 x 1000 x 8 bytes in 3 messages
    one = 3 * 1.0 + 3000 * 8 / 1000.0
    assert t.scatter == pytest.approx(2 * one)
    assert t.gather == pytest.approx(one)
    assert t.add == pytest.approx(1000 / 100.0)
    assert t.serial == pytest.approx(4000 / 100.0)
    assert t.total == pytest.approx(3 * one + 10.0)
    assert t.speedup == pytest.approx(40.0 / (3 * one + 10.0))
    b = M.predict("40x10x10", "4x1x1", link, add_rate=100.0, algorithm="binomial")
    assert b.gather == pytest.approx(2 * 1.0 + 24.0)
    with pytest.raises(ValueError, match="unknown algorithm"):
        M.predict("40x10x10", "4x1x1", link, add_rate=100.0, algorithm="tree")


def test_copies_are_priced_when_a_copy_rate_is_given():
    link = Hockney(0.0, 1000.0)
    t = M.predict("8x1x1", "2x1x1", link, add_rate=1.0, copy_rate=64.0)
    # pack all 64 bytes (1 us) + root's own 32-byte block (0.5 us) + 32 bytes over the link
    assert t.pack == pytest.approx(1.0)
    assert t.gather == pytest.approx(1.0 + 0.5 + 0.032)
    assert t.scatter == pytest.approx(2 * t.gather)


def test_grid_shape_does_not_change_the_collective_cost_at_orfeo_scale():
    link = Hockney(0.41, 5420)
    times = [M.predict("2400x100x100", g, link, add_rate=500.0).total for g in ("24x1x1", "12x2x1", "4x3x2", "2x3x4")]
    assert max(times) / min(times) < 1.01
    # and at 24 ranks the distributed sum is slower than adding on one core
    assert M.predict("2400x100x100", "24x1x1", link, add_rate=500.0).speedup < 1


def test_halo_volume_and_best_grid():
    assert M.halo_elements("100x100x100", "4x1x1") == 2 * 3 * 100 * 100
    assert M.halo_elements("100x100x100", "2x2x2") == 2 * 3 * 100 * 100
    assert M.halo_elements("100x100x100", "8x1x1") == 2 * 7 * 100 * 100
    assert M.best_grid("100x100x100", 8) == (2, 2, 2)
    assert M.best_grid("2400x100x100", 24) == (24, 1, 1)  # long in x: cut across x only
    assert M.best_grid("100x100x100", 24) == (2, 3, 4)
    assert M.best_grid("100x100x100", 8, ndims=1) == (1, 1, 8)
    assert M.max_halo_per_rank("100x100x100", "4x1x1") == 2 * 100 * 100
    assert M.max_halo_per_rank("100x100x100", "2x1x1") == 100 * 100


def test_grids_enumeration():
    assert len(M.grids(12)) == 18  # ordered triples with product 12
    assert all(math.prod(g) == 12 for g in M.grids(12))
    assert M.grids(6, ndims=1) == [(1, 1, 6), (1, 6, 1), (6, 1, 1)]
    with pytest.raises(ValueError, match="P must be"):
        M.grids(0)


def test_bad_shapes_and_grids_are_refused():
    with pytest.raises(ValueError, match="some blocks would be empty"):
        M.block_sizes("1x4x4", "2x1x1")
    with pytest.raises(ValueError, match="not of the form AxBxC"):
        M.block_sizes("4xax4", "1x1x1")
    with pytest.raises(ValueError, match="whole number >= 1"):
        M.block_sizes("4x0x4", "1x1x1")
    with pytest.raises(ValueError, match="add_rate"):
        M.predict("4x4x4", "1x1x1", Hockney(1, 1), add_rate=0)


def test_speedup_limit_from_both_sides():
    link = Hockney(0.0, 5420.0)
    # memory-bound add: 24 bytes move slower than one element is added -> never pays
    lim = M.speedup_limit(5420.0, 500.0)
    assert lim == pytest.approx(5420 / (24 * 500))
    sp = [M.predict("4800x10x10", (p, 1, 1), link, add_rate=500.0).speedup for p in (2, 24, 480)]
    assert 1 > sp[0] > sp[1] > sp[2] > lim
    assert sp[2] == pytest.approx(lim, rel=0.01)
    # an expensive operation per element (r small): speedup climbs towards the limit
    lim = M.speedup_limit(5420.0, 5.0)
    sp = [M.predict("4800x10x10", (p, 1, 1), link, add_rate=5.0).speedup for p in (2, 24, 480)]
    assert 1 < sp[0] < sp[1] < sp[2] < lim
    assert sp[1] == pytest.approx(24 / ((24 * 5 / 5420) * 23 + 1))


def test_grid_rows_reads_both_student_spellings():
    import pandas as pd

    tidy = pd.DataFrame(
        {
            "params": [
                "distribution=2400x100x100;topology=6x4;runtime_sec=0.54",
                "grid=24x1x1;matrix=2400x100x100",
                "matrix=800x300x100",
            ],
            "np": [24, 24, 24],
            "t_us": [5.2e5, 1.08e5, 1.2e5],
            "algorithm": ["", "virtual_topology", ""],
            "source": ["MatteoScorcia/x@1:t.csv", "Francesc0rtu/y@2:r.csv", "Francesc0rtu/y@2:r.csv"],
        }
    )
    rows = M.grid_rows(tidy)
    assert list(rows.grid) == ["6x4x1", "24x1x1"]  # the row without a grid is dropped
    assert list(rows.matrix) == ["2400x100x100", "2400x100x100"]
    assert list(rows.source_label) == ["MatteoScorcia", "Francesc0rtu"]


# ---------------------------------------------------------------------------------------
# Widget
