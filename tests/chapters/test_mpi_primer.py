"""The MPI primer page (commbook.chapters.mpi_primer): its examples, its send-mode verdicts and its exercises."""

import pandas as pd
import pytest

from commbook import kernels
from commbook.chapters import mpi_primer as primer
from commbook.chapters.mpi_primer.exercises import dims_create


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
    assert "standard send" in primer.standard_send_sentence(out)


def test_send_mode_sentence_follows_the_table():
    text = (
        "# commbook-kernel: send_modes\n# delay_ms: 200\n# columns: mode size_bytes return_ms\n"
        "standard 8 0.002\nstandard 4194304 201.0\nsynchronous 8 200.5\nsynchronous 4194304 200.1\n"
        "buffered 8 0.01\nbuffered 4194304 2.5\nready 8 0.01\nready 4194304 1.0\n# result: ok\n"
    )
    out = kernels.parse_output(text)
    assert primer.standard_send_sentence(out) == (
        "the 8 B standard send returned at once (the library buffered it), "
        "the 4 MiB one waited until the receive was posted"
    )
    assert primer.waited(out, "synchronous", False) and not primer.waited(out, "buffered", True)
    eager_everywhere = kernels.parse_output(text.replace("standard 4194304 201.0", "standard 4194304 0.5"))
    assert primer.standard_send_sentence(eager_everywhere).startswith("both the 8 B and the 4 MiB")


def test_prim_standard_is_checked_against_the_readers_own_run():
    from commbook import exercises as E

    assert E.expected("prim-standard", standard_ms=180.0, delay_ms=200.0) == "yes"
    assert E.expected("prim-standard", standard_ms=0.05, delay_ms=200.0) == "no"
