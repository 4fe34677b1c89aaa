"""commbook.algorithms: the one table of what the MPI libraries call their algorithms."""
from __future__ import annotations

from commbook import algorithms, collective_runs, importers
from commbook.chapters import collectives as collectives_chapter
from commbook.models import collective_schedules as schedules


def test_coll_tuned_numbers_are_open_mpis():
    # spot checks against ompi/mca/coll/tuned/coll_tuned_<op>_decision.c (v4.1.5, v5.0.9)
    t = algorithms.OMPI_COLL_TUNED
    assert t["bcast"][6] == "binomial" and t["bcast"][9] == "scatter_allgather_ring"
    assert t["allreduce"][4] == "ring" and t["allreduce"][6] == "rabenseifner"
    assert t["reduce"][6] == "in-order_binary" and t["barrier"][5] == "two_proc"
    assert all(table[0] == "ignore" and sorted(table) == list(range(len(table)))
               for table in t.values())


def test_importers_and_selection_read_the_same_table():
    for op, table in algorithms.OMPI_COLL_TUNED.items():
        labels = importers.COLL_TUNED[op]
        assert labels[0] == "default" and len(labels) == len(table)
        assert [n.replace("-", "_") for k, n in sorted(table.items()) if k] == labels[1:]
    for op in collective_runs.OPS:
        assert collective_runs.OMPI_ALGORITHMS[op] is algorithms.OMPI_COLL_TUNED[op]
    assert importers.COLL_TUNED["reduce"][6] == "in_order_binary"


def test_model_names_of_library_algorithms_exist_in_the_models():
    for (flavour, op), names in algorithms.MODEL_NAMES.items():
        for lib, model in names.items():
            assert model in schedules.ALGORITHMS[op], (flavour, op, lib)
            if flavour == "openmpi":
                assert lib in algorithms.OMPI_COLL_TUNED[op].values()
            else:
                assert lib in algorithms.MPICH_ALGORITHMS[op]
    assert algorithms.model_name("openmpi", "allreduce", "6") == "rabenseifner"
    assert algorithms.model_name("mpich", "allreduce", "reduce_scatter_allgather") == "rabenseifner"
    assert algorithms.model_name("openmpi", "bcast", "8") is None  # recursive-doubling allgather
    assert collectives_chapter.model_name("allreduce", "library:4") == "ring"
