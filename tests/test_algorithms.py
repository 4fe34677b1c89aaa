"""commbook.algorithms: the one table of what the MPI libraries call their algorithms."""

from __future__ import annotations

import pytest

from commbook import algorithms, algorithms_csv, c_tables, collective_runs, config, importers
from commbook.chapters import collectives as collectives_chapter
from commbook.models import collective_schedules as schedules


def test_coll_tuned_numbers_are_open_mpis():
    # spot checks against ompi/mca/coll/tuned/coll_tuned_<op>_decision.c (v4.1.5, v5.0.9)
    t = algorithms.OMPI_COLL_TUNED
    assert t["bcast"][6] == "binomial" and t["bcast"][9] == "scatter_allgather_ring"
    assert t["allreduce"][4] == "ring" and t["allreduce"][6] == "rabenseifner"
    assert t["reduce"][6] == "in-order_binary" and t["barrier"][5] == "two_proc"
    assert all(table[0] == "ignore" and sorted(table) == list(range(len(table))) for table in t.values())


def test_importers_and_selection_read_the_same_table():
    for op, table in algorithms.OMPI_COLL_TUNED.items():
        labels = importers.COLL_TUNED[op]
        assert labels[0] == "default" and len(labels) == len(table)
        assert [n.replace("-", "_") for k, n in sorted(table.items()) if k] == labels[1:]
    for op in collective_runs.OPS:
        assert collective_runs.OMPI_ALGORITHMS[op] is algorithms.OMPI_COLL_TUNED[op]
    assert importers.COLL_TUNED["reduce"][6] == "in_order_binary"


def test_model_names_of_library_algorithms_exist_in_the_models():
    for a in algorithms.ALGORITHMS:
        if a.model:
            assert a.model in schedules.ALGORITHMS[a.operation], a
    assert algorithms.model_name("openmpi", "allreduce", "6") == "rabenseifner"
    assert algorithms.model_name("mpich", "allreduce", "reduce_scatter_allgather") == "rabenseifner"
    assert algorithms.model_name("openmpi", "bcast", "8") is None  # recursive-doubling allgather
    assert algorithms.model_name("openmpi", "bcast", "scatter_allgather_ring") == "scatter_allgather"
    assert collectives_chapter.model_name("allreduce", "library:4") == "ring"


def test_records_name_each_algorithm_once_per_scheme():
    for op in algorithms.OPERATIONS:
        records = algorithms.of(op)
        for field in ("ompi_id", "ompi_name", "mpich", "kernel", "mpich_index"):
            values = [getattr(a, field) for a in records if getattr(a, field) is not None]
            assert len(values) == len(set(values)), (op, field)
        # MPICH reports its variable as the position in its list: 1, 2, ... without gaps
        assert sorted(a.mpich_index for a in records if a.mpich) == list(
            range(1, sum(1 for a in records if a.mpich) + 1)
        ), op
        aliases = [w for a in records for w in a.aliases]
        assert len(aliases) == len(set(aliases)), op


def test_kernel_labels_are_the_c_tables():
    for op, (file, table) in algorithms.KERNEL_TABLES.items():
        rows = c_tables.string_rows(config.kernels_dir() / file, "cc_algo", table, ("name", "description"), "algorithm")
        in_c = [name for name, _ in rows if name != "mine"]  # "mine": the reader's exercise
        assert list(algorithms.kernel_algorithms(op)) == in_c, op
        assert {a.kernel for a in algorithms.of(op) if a.kernel} == set(in_c), op


def test_one_colour_per_algorithm_across_its_names():
    c = algorithms.colour
    assert c("binomial") == c("library:6", "bcast") == c("library:2", "gather") == c("binomial", "gather")
    assert c("binary") == c("binary_tree") == c("library:5", "bcast")
    assert c("butterfly-lh") == c("recursive_doubling", "allreduce") != c("butterfly-hl")
    assert c("library") == c("default") == "k"
    assert c("library:3", "allreduce") != c("pipeline")  # the number means another algorithm there


HEADER = "operation,model,kernel,ompi_id,ompi_name,mpich,mpich_index,smpi,colour,aliases,description"


def test_the_records_are_the_shipped_table():
    table = config.data_dir() / algorithms_csv.TABLE
    assert algorithms_csv.read_records(table) == algorithms.ALGORITHMS
    ring = algorithms.library_record("openmpi", "allreduce", "ring")
    assert (ring.model, ring.kernel, ring.ompi_id, ring.mpich, ring.mpich_index) == ("ring", "ring", 4, "ring", 8)
    assert algorithms.by_label("bcast", "binary").aliases == ("bintree", "binarytree", "btree", "binary")


@pytest.mark.parametrize(
    "row, what",
    [
        ("bcast,linear,linear,1,basic_linear,,,flattree,C0,linear", "10 fields but the header has 11"),
        ("bcast,,,one,linear,,,,,,text", "ompi_id 'one' is not a whole number"),
        ("bcast,,,1,,,,,,,text", "ompi_id and ompi_name go together"),
        (",linear,,,,,,,,,text", "no operation"),
        ("bcast,,,,,,,,C0,,text", "no name"),
    ],
)
def test_a_bad_row_names_the_file_and_line(tmp_path, row, what):
    table = tmp_path / "algorithms.csv"
    table.write_text(f"# what: a test\n{HEADER}\nbcast,chain,chain,2,chain,,,NTSL,C1,,fine\n\n{row}\n")
    with pytest.raises(algorithms_csv.RecordError, match=f"algorithms.csv:5: {what}"):
        algorithms_csv.read_records(table)


def test_a_bad_header_names_the_file_and_line(tmp_path):
    table = tmp_path / "algorithms.csv"
    table.write_text("# what: a test\n" + HEADER.replace("colour", "color") + "\n")
    with pytest.raises(algorithms_csv.RecordError, match="algorithms.csv:2: the header must name each of"):
        algorithms_csv.read_records(table)
