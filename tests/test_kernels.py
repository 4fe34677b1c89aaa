"""Compiling and running kernels under mpiexec: results, validation, errors, timeouts."""

import shutil

import pytest

from commbook import kernels

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("np", [1, 2])
def test_pingpong_runs_and_validates(np):
    out = kernels.run_mpiexec("pingpong", np, {"sizes": "0:64K", "repetitions": 3, "iterations": 50})
    assert out.ok
    assert out.meta["validation"] == "on"
    assert out.meta["np"] == np
    assert out.meta["repetitions"] == 3
    t = out.table
    assert list(t["size_bytes"]) == [0] + [2**k for k in range(17)]
    assert (t["t_min_us"] <= t["t_median_us"]).all() and (t["t_median_us"] <= t["t_max_us"]).all()
    assert (t["t_median_us"] > 0).all()  # no timing comparisons: those belong in benchmarks/


def test_a_run_pauses_a_book_builds_background_while_it_measures(tmp_path, monkeypatch):
    """In a book build a run marks itself measuring (commbook.quiet_runs) from its start to its end."""
    monkeypatch.setenv("COMMBOOK_QUIET_RUNS", str(tmp_path))
    seen = []
    kernels.run_mpiexec(
        "pingpong",
        2,
        {"sizes": "0:1K", "repetitions": 3},
        on_line=lambda line: seen.append(len(list(tmp_path.iterdir()))),
    )
    assert seen and set(seen) == {1}
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("np", [1, 2])
def test_corrupted_payload_is_caught(np):
    with pytest.raises(kernels.ValidationFailed) as err:
        kernels.run_mpiexec("pingpong", np, {"sizes": "0:16", "inject-error": 1})
    assert "VALIDATION FAILED" in str(err.value)
    assert "byte" in err.value.stderr  # the rank that saw it says which byte


def test_bad_option_is_one_clear_error():
    with pytest.raises(kernels.KernelFailed) as err:
        kernels.run_mpiexec("pingpong", 2, {"sizes": "9:1"})
    assert "--sizes '9:1' is not a size range" in str(err.value)
    assert "prterun" not in str(err.value) and "HYDRA" not in str(err.value)


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_unknown_kernel_lists_the_known_ones():
    with pytest.raises(kernels.KernelError, match="known: .*pingpong"):
        kernels.source_path("no_such_kernel")


@pytest.mark.pure
def test_a_kernel_is_built_from_its_source_and_the_shared_ones(tmp_path, monkeypatch):
    """c_sources: the kernel, then the .c beside each header it includes (collectives_algos.c);
    the build cache's key changes when that shared source changes."""
    assert [p.name for p in kernels.c_sources("pingpong")] == ["pingpong.c"]
    assert [p.name for p in kernels.c_sources("bcast")] == ["bcast.c", "collectives_algos.c"]
    butterfly = kernels.c_sources("exercises/butterfly_solution")  # through butterfly_harness.h
    assert [p.name for p in butterfly] == ["butterfly_solution.c", "collectives_algos.c"]
    with pytest.raises(kernels.KernelError, match="no kernel named 'collectives_algos'"):
        kernels.source_path("collectives_algos")  # shared code, not a kernel
    copy = tmp_path / "kernels_c"
    shutil.copytree(kernels.source_path("bcast").parent, copy, ignore=shutil.ignore_patterns("*.so", "*.o"))
    monkeypatch.setenv("COMMBOOK_KERNELS", str(copy))
    before = kernels._fingerprint(kernels.c_sources("bcast"), [], "mpicc")
    shared = copy / "collectives_algos.c"
    shared.write_text(shared.read_text() + "\n/* changed */\n")
    assert kernels._fingerprint(kernels.c_sources("bcast"), [], "mpicc") != before


def test_compile_error_carries_compiler_message(tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text('#include "commbench.h"\nstatic int cb_kernel(MPI_Comm c, cb_ctx *x) { return oops; }\n')
    with pytest.raises(kernels.CompileError) as err:
        kernels.compile_kernel(bad)
    assert "oops" in str(err.value) and "bad.c" in str(err.value)


def test_compile_is_cached_by_source(tmp_path):
    src = tmp_path / "k.c"
    body = kernels.source_path("examples/deadlock").read_text()
    src.write_text(body)
    first = kernels.compile_kernel(src)
    assert kernels.compile_kernel(src) == first
    src.write_text(body + "\n/* changed */\n")
    assert kernels.compile_kernel(src) != first


def test_hanging_job_is_killed_and_reported():
    with pytest.raises(kernels.KernelTimeout, match="did not finish in 3 s and was killed"):
        kernels.run_mpiexec("examples/deadlock", 2, timeout=3)
    import time

    time.sleep(1)
    from commbook.cluster import leftover_processes

    assert not [p for p in leftover_processes() if "deadlock" in p]


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_parse_output_rejects_rows_before_columns():
    with pytest.raises(kernels.KernelError, match="line 2"):
        kernels.parse_output("# commbook-kernel: x\n1 2 3\n")


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_parse_output_rejects_ragged_rows():
    with pytest.raises(kernels.KernelError, match="2 fields for 3 columns"):
        kernels.parse_output("# columns: a b c\n1 2\n")


@pytest.mark.pure  # runs no MPI: part of make test-fast
def test_to_tidy_maps_columns_and_keeps_the_rest_in_params():
    out = kernels.parse_output(
        "# commbook-kernel: pingpong\n# benchmark: pingpong\n# algorithm: blocking\n"
        "# mpi_library: Open MPI v5.0.11, package: x\n# np: 2\n# repetitions: 5\n"
        "# columns: size_bytes iterations t_min_us t_median_us t_max_us\n"
        "8 1000 0.1 0.2 0.3\n# result: ok\n"
    )
    tidy = out.to_tidy(machine="m", mapping="core")
    row = tidy.iloc[0]
    assert (row["benchmark"], row["algorithm"], row["np"], row["size_bytes"]) == ("pingpong", "blocking", 2, 8)
    assert (row["t_us"], row["t_min_us"], row["t_max_us"], row["reps"]) == (0.2, 0.1, 0.3, 5)
    assert row["mpi_library"] == "Open MPI 5.0.11"
    assert row["params"] == "iterations=1000"


def test_a_launcher_that_dies_before_any_rank_is_started_once_more(monkeypatch, capsys):
    """Open MPI 5's launcher now and then fails before any rank runs: one more start, said so;
    a second failure is reported, never retried forever."""
    from commbook import mpi_env

    calls = []
    real = mpi_env.mpiexec_command

    def flaky(np, program):
        calls.append(program)
        if len(calls) == 1:  # a launcher that prints PMIx's message and exits as prterun does
            return ["sh", "-c", 'echo "The PMIx server\'s listener thread failed to start. We cannot" >&2; exit 213']
        return real(np, program)

    monkeypatch.setattr(mpi_env, "mpiexec_command", flaky)
    out = kernels.run_mpiexec("pingpong", 2, {"sizes": "8", "repetitions": 1}, timeout=120)
    assert out.result == "ok" and len(calls) == 2
    assert "starting it again" in capsys.readouterr().err

    calls.clear()  # the raw runner (tests, other programs) starts it once more as well
    raw = kernels.mpiexec_raw(1, [str(kernels.compile_kernel("pingpong", "executable")), "--help"], timeout=120)
    assert "--sizes" in raw.stdout and len(calls) == 2

    monkeypatch.setattr(
        mpi_env,
        "mpiexec_command",
        lambda np, program: ["sh", "-c", 'echo "The PMIx server\'s listener thread failed to start." >&2; exit 213'],
    )
    with pytest.raises(kernels.KernelFailed, match="exit code 213"):
        kernels.run_mpiexec("pingpong", 2, {"sizes": "8"}, timeout=60)
