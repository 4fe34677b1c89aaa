"""The MPI primer page (commbook.chapters.mpi_primer): its examples, its send-mode verdicts and its exercises."""

import pandas as pd
import pytest

from commbook import kernels
from commbook.chapters import mpi_primer as primer
from commbook.chapters.mpi_primer.exercises import dims_create


def _modes(**return_ms):
    """A send_modes output: 8 B and 4 MiB in every mode, 200 ms delay; return_ms overrides
    (e.g. standard_large=201.0) on top of a run as the standard defines it."""
    from commbook.kernels import KernelOutput

    ms = {"standard_small": 0.004, "standard_large": 207.3, "synchronous_small": 204.0, "synchronous_large": 203.0}
    ms |= {"buffered_small": 0.012, "buffered_large": 2.8, "ready_small": 0.008, "ready_large": 8.8}
    ms |= return_ms
    rows = [
        (m, n, ms[f"{m}_{size}"])
        for m in ("standard", "synchronous", "buffered", "ready")
        for size, n in (("small", 8), ("large", 4194304))
    ]
    table = pd.DataFrame(rows, columns=["mode", "size_bytes", "return_ms"])
    return KernelOutput(meta={"delay_ms": "200"}, table=table, result="ok")


def test_polls_counts_the_call_that_found_the_message():
    from commbook.kernels import KernelOutput

    def run(n):
        return KernelOutput(meta={}, table=pd.DataFrame({"rank_polls_max": [n]}), result="ok")

    v = primer.polls(run(1))
    assert (v.case, v.numbers) == ("first", {"polls": 1, "missed": 0})
    v = primer.polls(run(2))  # the run the old sentence read as "2 times before the message was there"
    assert (v.case, v.numbers) == ("later", {"polls": 2, "missed": 1})
    with pytest.raises(ValueError):
        primer.polls(run(0))


@pytest.mark.parametrize(
    "small_ms, large_ms, case",
    [
        (0.004, 207.3, "small_buffered"),
        (0.004, 0.5, "both_buffered"),
        (201.0, 207.3, "both_waited"),
        (201.0, 0.5, "small_waited"),
    ],
)
def test_standard_send_reads_both_standard_rows(small_ms, large_ms, case):
    v = primer.standard_send(_modes(standard_small=small_ms, standard_large=large_ms))
    assert v.case == case
    assert v.numbers == {
        "small": "8 B",
        "large": "4 MiB",
        "small_ms": small_ms,
        "large_ms": large_ms,
        "delay_ms": 200.0,
    }


def test_other_modes_read_all_six_rows():
    v = primer.other_modes(_modes())
    assert v.case == "as_defined"
    assert v.numbers["ssend_small_ms"] == 204.0 and v.numbers["rsend_large_ms"] == 8.8
    assert v.numbers["others_max_ms"] == 8.8  # the slowest buffered or ready send
    # each row the old sentence left out (large synchronous, small buffered, both ready) flips it
    for row in ({"synchronous_large": 0.3}, {"buffered_small": 150.0}, {"ready_small": 120.0}, {"ready_large": 101.0}):
        assert primer.other_modes(_modes(**row)).case == "contradicts", row
    assert primer.other_modes(_modes(synchronous_small=0.01)).case == "contradicts"
    assert primer.other_modes(_modes(buffered_large=150.0)).case == "contradicts"


mpi = pytest.mark.mpi


@pytest.mark.parametrize(
    "P, d, dims",
    [(6, 2, (3, 2)), (12, 2, (4, 3)), (7, 2, (7, 1)), (16, 2, (4, 4)), (24, 3, (4, 3, 2)), (8, 3, (2, 2, 2))],
)
def test_dims_create_is_mpis_choice(P, d, dims):
    assert dims_create(P, d) == dims


@mpi
@pytest.mark.parametrize("name, np_", [("point_to_point", 3), ("cartesian", 6), ("collectives", 5)])
def test_primer_examples_pass_their_own_checks(name, np_):
    out = primer.run_example(name, np_)
    assert out.ok and out.meta["np"] == np_


@mpi
def test_cartesian_grid_has_mpi_proc_null_only_at_the_non_periodic_edges():
    t = primer.run_example("cartesian", 6).table
    assert list(t.columns[:3]) == ["rank", "row", "col"] and len(t) == 6
    assert (t.up != "none").all() and (t.down != "none").all()
    assert set(t[t.col == 0].left) == {"none"} and set(t[t.col == 1].right) == {"none"}


@mpi
def test_send_modes_synchronous_waits_and_buffered_does_not():
    out = primer.run_example("send_modes", 2, large="256K", **{"delay-ms": 300})
    assert primer.waited(out, "synchronous", False)  # Ssend waits even for 8 bytes
    assert not primer.waited(out, "buffered", True)  # Bsend copies and returns
    assert primer.other_modes(out).case == "as_defined"
    assert primer.standard_send(out).numbers["large"] == "256 KiB"


def test_send_mode_verdicts_read_a_printed_table():
    text = (
        "# commbook-kernel: send_modes\n# delay_ms: 200\n# columns: mode size_bytes return_ms\n"
        "standard 8 0.002\nstandard 4194304 201.0\nsynchronous 8 200.5\nsynchronous 4194304 200.1\n"
        "buffered 8 0.01\nbuffered 4194304 2.5\nready 8 0.01\nready 4194304 1.0\n# result: ok\n"
    )
    out = kernels.parse_output(text)
    v = primer.standard_send(out)
    assert v.case == "small_buffered" and (v.numbers["small_ms"], v.numbers["large_ms"]) == (0.002, 201.0)
    assert primer.other_modes(out).case == "as_defined"
    eager_everywhere = kernels.parse_output(text.replace("standard 4194304 201.0", "standard 4194304 0.5"))
    assert primer.standard_send(eager_everywhere).case == "both_buffered"


def test_prim_standard_is_checked_against_the_readers_own_run():
    from commbook import exercises as E

    assert E.expected("prim-standard", standard_ms=180.0, delay_ms=200.0) == "yes"
    assert E.expected("prim-standard", standard_ms=0.05, delay_ms=200.0) == "no"
