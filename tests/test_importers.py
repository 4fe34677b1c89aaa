"""Importers: standard IMB/OSU text, the ORFEO files (real osu_*/IMB/student outputs), the CLI,
round trips and fuzzed copies. ORFEO tests skip when the mirror is absent."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pandas as pd
import pytest

from commbook import importers as im
from commbook import orfeo
from commbook.cli import main
from commbook.data import normalise, read_measurements, write_measurements

REPO = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("COMMBOOK_ORFEO_MIRROR") or REPO.parent / "shared" / "orfeo")
needs_mirror = pytest.mark.skipif(
    not (MIRROR / "README.md").exists(), reason=f"ORFEO mirror not found at {MIRROR} (set COMMBOOK_ORFEO_MIRROR)"
)

# Standard outputs, laid out exactly as IMB-MPI1 and OSU 7.x print them (IMB_output.c,
# osu_util.c print_header/print_stats); numbers are illustrative, the layout is the point.
IMB_TEXT = """#------------------------------------------------------------
#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part
#------------------------------------------------------------
# Calling sequence was:

# ./IMB-MPI1 PingPong Bcast Barrier

# Minimum message length in bytes:   0
# Maximum message length in bytes:   4194304

#---------------------------------------------------
# Benchmarking PingPong
# #processes = 2
#---------------------------------------------------
       #bytes #repetitions      t[usec]   Mbytes/sec
            0         1000         0.21         0.00
            1         1000         0.22         4.55
         1024         1000         0.61      1678.69

#----------------------------------------------------------------
# Benchmarking Bcast
# #processes = 4
#----------------------------------------------------------------
       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
            0         1000         0.03         0.04         0.03
            8         1000         0.60         0.90         0.75

#---------------------------------------------------
# Benchmarking Barrier
# #processes = 4
#---------------------------------------------------
 #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
         1000         1.10         1.30         1.20


# All processes entering MPI_Finalize
"""
OSU_LATENCY = """# OSU MPI Latency Test v7.3
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)
1                       0.21
2                       0.20
4194304               354.12
"""
OSU_BCAST_FULL = """# OSU MPI Broadcast Latency Test v7.3
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations
1                       1.23              1.01              1.45        1000
1048576               355.10            340.00            370.20         100
"""
OSU_BARRIER = """# OSU MPI Barrier Latency Test v7.3
# Avg Latency(us)
             2.05
"""
OSU_BW = """# OSU MPI Bandwidth Test v7.3
# Datatype: MPI_CHAR.
# Size      Bandwidth (MB/s)
1                       2.50
1048576             10000.00
"""


def write(tmp_path, name, text, encoding="utf-8"):
    p = tmp_path / name
    p.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return p


# ------------------------------------------------------------------- standard formats
def test_imb_text_sections(tmp_path):
    df = im.import_file(write(tmp_path, "imb.out", IMB_TEXT))
    pp = df[df.benchmark == "pingpong"]
    assert list(pp.size_bytes) == [0, 1, 1024] and list(pp.t_us) == [0.21, 0.22, 0.61]
    assert set(pp.np) == {2} and "bw_MBps=1678.69" in pp.params.iloc[2]
    bc = df[df.benchmark == "bcast"]
    assert list(bc.np) == [4, 4] and list(bc.t_us) == [0.03, 0.75]
    assert list(bc.t_min_us) == [0.03, 0.60] and list(bc.t_max_us) == [0.04, 0.90]
    bar = df[df.benchmark == "barrier"]
    assert bar.t_us.tolist() == [1.20] and bar.size_bytes.tolist() == [0] and bar.reps.tolist() == [1000]


def test_osu_latency_and_collectives(tmp_path):
    lat = im.import_file(write(tmp_path, "lat.txt", OSU_LATENCY))
    assert lat.benchmark.unique().tolist() == ["latency"] and lat.np.unique().tolist() == [2]
    assert lat.set_index("size_bytes").t_us[4194304] == 354.12
    bc = im.import_file(write(tmp_path, "run.txt", OSU_BCAST_FULL), hints={"np": 8})
    assert bc.benchmark.unique().tolist() == ["bcast"] and bc.np.unique().tolist() == [8]
    row = bc.iloc[1]
    assert (row.t_us, row.t_min_us, row.t_max_us, row.reps) == (355.10, 340.00, 370.20, 100)
    with pytest.raises(im.Refused, match="no process count"):
        im.import_file(write(tmp_path, "run2.txt", OSU_BCAST_FULL))
    bar = im.import_file(write(tmp_path, "b.txt", OSU_BARRIER), hints={"np": 16})
    assert bar.benchmark.tolist() == ["barrier"] and bar.t_us.tolist() == [2.05]
    bw = im.import_file(write(tmp_path, "bw.txt", OSU_BW))
    assert bw.benchmark.unique().tolist() == ["bw"]
    assert bw.t_us.iloc[1] == pytest.approx(1048576 / 10000.0)  # bytes / (10^6 B/s) = us


def test_command_line_and_coll_tuned_ids(tmp_path):
    text = (
        "# mpirun -np 16 --map-by socket --mca coll_tuned_use_dynamic_rules true "
        "--mca coll_tuned_bcast_algorithm 5 osu_bcast\n" + OSU_BCAST_FULL
    )
    df = im.import_file(write(tmp_path, "x.txt", text))
    assert set(df.np) == {16} and set(df.mapping) == {"socket"}
    assert set(df.algorithm) == {"binary_tree"} and "coll_tuned_id=5" in df.params.iloc[0]
    assert set(df.mpi_library) == {"Open MPI"}


@pytest.mark.parametrize(
    "bench,value,expected",
    [
        ("bcast", "0", ("default", 0)),
        ("bcast", 9, ("scatter_allgather_ring", 9)),
        ("bcast", "BinaryTree", ("binary_tree", 5)),
        ("bcast", "linear", ("basic_linear", 1)),
        ("gather", "3", ("linear_sync", 3)),
        ("gather", "sync", ("linear_sync", 3)),
        ("reduce", "7", ("rabenseifner", 7)),
        ("reduce", "4", ("binary", 4)),
        ("scatter", "3", ("linear_nb", 3)),
        ("barrier", "ring", ("double_ring", 2)),
        ("barrier", "6", ("tree", 6)),
        ("allreduce", "4", ("ring", 4)),
        ("bcast", "42", ("library:42", 42)),
    ],
)
def test_coll_tuned_names(bench, value, expected):
    assert im.canonical_algorithm(bench, value) == expected


def test_table_quirks(tmp_path):
    # decimal commas with tab separators, an R row-number column and a model column dropped
    t = "#header_line 1:\tmpirun -np 2 --map-by core ./IMB-MPI1 PingPong\n\tBytes\tRepetition\tt_usec\tMbytes.sec\test_lat\n1\t0\t1000\t0,198\t0\t0,21\n2\t8\t1000\t0,25\t32,0\t0,22\n"
    df = im.import_file(write(tmp_path, "core_ucx.csv", t))
    assert df.t_us.tolist() == [0.198, 0.25] and df.size_bytes.tolist() == [0, 8]
    assert set(df.mapping) == {"core"} and "est" not in df.params.iloc[0]
    # header names a column that no row has (MessageSize): dropped, latency kept
    t = "Algorithm,Allocation,Processes,MessageSize,Avg Latency(us)\nbruck,core,2,0.19\nbruck,core,3,0.38\n"
    df = im.import_file(write(tmp_path, "barrier_bruck.csv", t))
    assert df.t_us.tolist() == [0.19, 0.38] and df.np.tolist() == [2, 3] and set(df.algorithm) == {"bruck"}
    # 3 names, 4 fields: a 'pair' column spanning two fields; OSU comment rows skipped
    t = "CPU_Pair,MessageSize,Latency\n0,1,#,Datatype:\n0,1,1,0.19\n0,5,8,0.30\n"
    df = im.import_file(write(tmp_path, "latency_pairs.csv", t))
    assert df.t_us.tolist() == [0.19, 0.30] and "core_to=5" in df.params.iloc[1]
    # wide table: one column per algorithm; semicolons, CRLF and a BOM
    t = "\ufeffcores;basic_linear;chain\r\n2;0,19;0,2\r\n3;0,38;0,41\r\n"
    df = im.import_file(write(tmp_path, "bcast_node.csv", t), hints={"size_bytes": 1})
    assert sorted(set(df.algorithm)) == ["basic_linear", "chain"] and set(df.mapping) == {"node"}
    assert df[(df.np == 3) & (df.algorithm == "chain")].t_us.item() == pytest.approx(0.41)


def test_refusals_name_file_and_line(tmp_path):
    cases = {
        "empty.csv": ("", "empty file"),
        "blank.csv": ("\n\n  \n", "blank file"),
        "bin.csv": (b"a,b\n\x00\x01", "binary data"),
        "latin.csv": (b"Processes,Latency\n2,0.1\xe9\n", "not UTF-8"),
        "bcast_x.csv": ("Processes,Latency\n2,0.1\n3,abc\n", r":3: column 'Latency' has 'abc'"),
        "bcast_y.csv": ("Processes,Latency\n2,0.1\n3,0.2,7,8\n4,0.3\n", r":3: 4 fields but the header has 2"),
        "notime.csv": ("Processes,Foo\n2,0.1\n", "no time or latency column"),
        "values.txt": ("0.1\n0.2\n", "np_start"),
    }
    for name, (text, reason) in cases.items():
        p = write(tmp_path, name, text)
        with pytest.raises(im.Refused, match=reason) as e:
            im.import_file(p)
        assert str(e.value).startswith(str(p)) and "\n" not in str(e.value)


def test_values_and_rank_times(tmp_path):
    df = im.import_file(
        write(tmp_path, "run_bcast2_msize2.txt", "ttime\n0.2\n0.4\n0.3\n"), hints={"np_start": 2, "np_step": 2}
    )
    assert df.np.tolist() == [2, 4, 6] and set(df.algorithm) == {"chain"} and set(df.size_bytes) == {2}
    ranks = "0,3.0\n0,5.0\n1,7.0\n2,9.0\n0,11.0\n1,10.0\n"  # P = 1, 2, 3; ranks in any order
    df = im.import_file(write(tmp_path, "ring.out", ranks), hints={"time_unit": "us", "benchmark": "ring"})
    assert df.np.tolist() == [1, 2, 3] and df.t_us.tolist() == [3.0, 7.0, 11.0]
    assert df.t_min_us.tolist() == [3.0, 5.0, 9.0]
    with pytest.raises(im.Refused, match="no unit"):
        im.import_file(write(tmp_path, "ring2.out", ranks))


def test_round_trip(tmp_path):
    df = im.import_file(write(tmp_path, "imb.out", IMB_TEXT))
    pd.testing.assert_frame_equal(df, normalise(df))  # built with the schema's types
    out = write_measurements(tmp_path / "tidy.csv", df, {"what": "round trip"})
    back = read_measurements(out)
    pd.testing.assert_frame_equal(back.table, df)
    assert back.meta["what"] == "round trip"


# --------------------------------------------------------------------------------- CLI
def test_cli_import(tmp_path, capsys):
    (tmp_path / "d").mkdir()
    good = write(tmp_path, "d/lat.txt", OSU_LATENCY)
    write(tmp_path, "d/broken.csv", "Processes,Latency\n2,x\n")
    out = tmp_path / "tidy.csv"
    assert main(["import", str(good), "--out", str(out), "--machine", "laptop"]) == 0
    assert set(read_measurements(out).table.machine) == {"laptop"}
    assert "imported 1 file, 3 rows" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "d"), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "broken.csv:2" in err[0] and "Traceback" not in err[0]
    assert main(["import", str(tmp_path / "d"), "--out", str(out), "--keep-going"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("refused: ") and "imported 1 file, 3 rows; refused 1 file" in err[-1]
    assert main(["import", str(good), "--mapping", "diagonal"]) == 2


# ------------------------------------------------------------------------ ORFEO files
@needs_mirror
def test_known_orfeo_files():
    def imp(key):
        return im.import_file(MIRROR / key, hints=orfeo.hints_for(orfeo.entry(key)))

    # the report's 0.99 us (Scorcia's report, sec. 2, THIN, map by node, ucx) is in the mean table
    df = imp("matteoscorcia/assignment1/section2/thin/csv/mean/openmpi/node-ucx.csv")
    assert df.set_index("size_bytes").t_us[0] == pytest.approx(0.99, abs=0.01)
    assert set(df.machine) == {"orfeo-thin"} and set(df.transport) == {"ucx"}
    df = imp("mzampar/Excercise_1/bcast/results/bcast_linear.csv")
    assert set(df.algorithm) == {"binomial"} and "label_fix" in df.params.iloc[0]
    df = imp("gabrynho/Exercise_1/results/thin_result.csv")
    assert set(df.benchmark) == {"bcast", "allreduce"}
    assert set(df[df.benchmark == "allreduce"].algorithm) == {"default"}
    df = imp("barbaralol/exercise_1/gather/20240719_130040_thin_gather1_msize.txt")
    assert set(df.benchmark) == {"barrier"} and len(df) == 18 and df.np.max() == 36
    df = imp("thomasverardo/Sec2/total_stats_thin_openmpi.csv")
    assert len(df) == 110 * 24 and df.groupby(["mapping", "transport"]).ngroups == 11
    df = imp("francesc0rtu/es1/ring/results.csv")
    assert df[(df.np == 2) & (df.algorithm == "blocking")].t_us.item() == pytest.approx(3.86)
    df = imp("edoardocortolezzis/ex1/results/gather3_fixed_core.csv")
    assert df.np.max() == 64  # np 65..114 have no latency
    df = imp("matteoscorcia/assignment1/section3/outputs/12-map-core.txt")
    assert df.np.item() == 12 and "mlups=1324" in df.params.item()


@pytest.mark.slow
@needs_mirror
def test_every_orfeo_file_imported_or_refused():
    """Each file gives tidy rows or one specific line; never a traceback or an internal error."""
    imported, refused, rows = 0, [], 0
    files = [p for p in im.iter_files([MIRROR])]
    for path in files:
        e = orfeo.lookup(path)
        hints = orfeo.hints_for(e) if e is not None else {}
        try:
            df = im.import_file(path, hints=hints)
        except im.Refused as err:
            msg = str(err)
            assert "internal error" not in msg and "\n" not in msg and msg.startswith(str(path))
            refused.append(msg)
            continue
        assert len(df) > 0 and im.is_finite_table(df)
        imported += 1
        rows += len(df)
    print(f"\nORFEO mirror: {imported} files imported ({rows} rows), {len(refused)} refused")
    assert imported + len(refused) == len(files)
    assert imported > 1100 and len(refused) < 50


@pytest.mark.slow
@needs_mirror
def test_orfeo_files_without_catalog_never_crash():
    """One file per folder read only from its text and name (as a user's files are)."""
    seen, imported = set(), 0
    for path in im.iter_files([MIRROR]):
        if path.parent in seen:
            continue
        seen.add(path.parent)
        try:
            im.import_file(path)
            imported += 1
        except im.Refused as err:
            assert "internal error" not in str(err), str(err)
    assert imported >= len(seen) // 2


def _fuzz(data: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    cut = rng.randrange(max(len(data), 1))
    garbage = bytes(rng.randrange(256) for _ in range(20))
    pos = rng.randrange(max(len(data), 1))
    lines = data.split(b"\n")
    rng.shuffle(lines)
    return [
        ("truncated", data[:cut]),
        ("semicolons", data.replace(b",", b";")),
        ("tabs", data.replace(b",", b"\t").replace(b" ", b"\t")),
        ("garbage", data[:pos] + garbage + data[pos:]),
        ("crlf_bom", b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")),
        ("shuffled", b"\n".join(lines)),
        ("headless", b"\n".join(data.split(b"\n")[3:])),
        ("decimal_commas", data.replace(b".", b",")),
    ]


@pytest.mark.slow
@needs_mirror
def test_fuzzed_orfeo_copies_never_crash(tmp_path):
    rng = random.Random(0)
    cat = orfeo.catalog()
    cat = cat[(cat.skip == "") & (cat["size"].astype(int) < 60_000)]
    sample = cat.groupby("format").head(3)
    outcomes = {"rows": 0, "refused": 0}
    for _, e in sample.iterrows():
        data = (MIRROR / e.key).read_bytes()
        for kind, fuzzed in _fuzz(data, rng):
            p = tmp_path / f"{kind}_{Path(e.key).name}"
            p.write_bytes(fuzzed)
            try:
                df = im.import_file(p)
                assert im.is_finite_table(df)
                outcomes["rows"] += 1
            except im.Refused as err:
                assert "internal error" not in str(err), f"{kind} {e.key}: {err}"
                assert "\n" not in str(err)
                outcomes["refused"] += 1
    assert outcomes["rows"] > 0 and outcomes["refused"] > 0


# ----------------------------------------------------------------------- hostile input


def _hostile_mutations(data: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    """Truncations, byte flips, swapped columns, negative values and an absurd line."""
    lines = data.split(b"\n")
    numeric = [
        i
        for i, line in enumerate(lines)
        if any(c in b"0123456789" for c in line[:1] or b"") or (line.strip()[:1].isdigit())
    ]
    out = [("truncated", data[: rng.randrange(max(len(data), 1))])]
    flipped = bytearray(data)
    for _ in range(3):
        if flipped:
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
    out.append(("flipped", bytes(flipped)))

    def swap(line: bytes) -> bytes:
        sep = b"," if b"," in line else None
        fields = line.split(sep) if sep else line.split()
        if len(fields) >= 2:
            i, j = rng.sample(range(len(fields)), 2)
            fields[i], fields[j] = fields[j], fields[i]
        return (sep or b" ").join(fields)

    out.append(("swapped", b"\n".join(swap(line) for line in lines)))
    negative = list(lines)
    for i in rng.sample(numeric, min(3, len(numeric))):
        negative[i] = b"-" + negative[i].lstrip()
    out.append(("negative", b"\n".join(negative)))
    out.append(
        (
            "negative-all",
            b"\n".join(b" ".join(b"-" + f if f[:1].isdigit() else f for f in line.split(b" ")) for line in lines),
        )
    )
    long_line = list(lines)
    long_line.insert(len(lines) // 2, b"9" * 200_000)
    out.append(("long-line", b"\n".join(long_line)))
    return out


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


@pytest.mark.slow
def test_fuzzed_orfeo_mutations_refused_cleanly_or_possible(orfeo_mirror, tmp_path):
    """Every mutation of real ORFEO files ends within 10 s as tidy rows with only possible
    values, or as one Refused line naming the file; never a traceback."""
    import signal

    rng = random.Random(16)
    files = sorted(
        p
        for p in im.iter_files([orfeo_mirror])
        if p.suffix.lower() in (".csv", ".txt", ".out", "") and p.stat().st_size < 100_000
    )
    sample = rng.sample(files, min(40, len(files)))
    counts = {"rows": 0, "refused": 0}
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for src in sample:
            for kind, mutated in _hostile_mutations(src.read_bytes(), rng):
                p = tmp_path / kind / src.name
                p.parent.mkdir(exist_ok=True)
                p.write_bytes(mutated)
                signal.alarm(10)
                try:
                    df = im.import_file(p)
                except im.Refused as err:
                    msg = str(err)
                    assert msg.startswith(str(p)) and "\n" not in msg, msg
                    assert "internal error" not in msg, f"{kind} of {src}: {msg}"
                    counts["refused"] += 1
                    continue
                except _Hang:
                    pytest.fail(f"{kind} of {src} took more than 10 s")
                finally:
                    signal.alarm(0)
                assert im.is_finite_table(df), f"{kind} of {src}"
                impossible = (
                    (df.t_us < 0)
                    | (df.t_min_us < 0)
                    | (df.t_max_us < 0)
                    | (df.size_bytes < 0)
                    | (df.np < 1)
                    | (df.reps < 1)
                )
                assert not impossible.any(), f"{kind} of {src} accepted {df[impossible].head(2)}"
                counts["rows"] += 1
    finally:
        signal.signal(signal.SIGALRM, old)
    assert counts["rows"] > 0 and counts["refused"] > 0


def test_special_and_huge_files_refused_within_seconds(tmp_path):
    import time

    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as f:
        f.truncate(im.MAX_BYTES + 1)  # sparse: costs no disk
    one_line = tmp_path / "one_line.csv"
    one_line.write_text("size,time\n" + "1," * 5_000_000 + "\n")
    utf16 = tmp_path / "utf16.txt"
    utf16.write_text("size,time\n8,1.5\n", encoding="utf-16")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("# machine: caf\xe9\nsize,time\n8,1.5\n".encode("latin-1"))
    cases = [
        (Path(os.devnull), "not a regular file (a device)"),
        (Path("/dev/zero"), "not a regular file (a device)"),
        (fifo, "not a regular file (a FIFO)"),
        (huge, "larger than 32 MB"),
        (one_line, f"{one_line}:2: a line of 10,000,000 characters"),
        (utf16, "binary data (NUL byte)"),
        (latin1, f"{latin1}:1: not UTF-8 text"),
    ]
    for path, said in cases:
        t0 = time.monotonic()
        with pytest.raises(im.Refused) as err:
            im.import_file(path)
        assert time.monotonic() - t0 < 5
        assert said in str(err.value) and str(err.value).startswith(str(path))


def test_negative_and_impossible_values_name_the_line(tmp_path):
    cases = {
        "negative time": "benchmark,np,size_bytes,t_us\npingpong,2,8,1.5\npingpong,2,16,-2.0\n",
        "negative message size": "benchmark,np,size_bytes,t_us\npingpong,2,-8,1.5\n",
        "fewer than one process": "benchmark,np,size_bytes,t_us\nbcast,-4,8,1.5\n",
    }
    for what, text in cases.items():
        p = tmp_path / "t.csv"
        p.write_text(text)
        with pytest.raises(im.Refused, match=what) as err:
            im.import_file(p)
        line = len(text.strip().splitlines())
        assert str(err.value).startswith(f"{p}:{line}: "), str(err.value)


def test_cli_import_of_dev_zero_is_one_line(capsys):
    assert main(["import", "/dev/zero"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("commbook: error: /dev/zero: not a regular file")
