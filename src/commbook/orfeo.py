"""ORFEO datasets: the shipped summary tables (figures quoted in the seed reports) and,
when fetched, the raw student files they came from.

Summary tables live in ``data/orfeo/<name>.csv``: ``# key: value`` metadata lines, one header
row, data rows, every row naming its source document in a ``source`` column.
"""
from __future__ import annotations

import functools
import gzip
import io
import os
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from .data import DataFormatError, read_metadata_csv

REPO_ROOT = Path(__file__).resolve().parents[2]
TABLES_DIR = REPO_ROOT / "data" / "orfeo"
DERIVED_DIR = TABLES_DIR / "derived"  # aggregates of the raw files: see commbook.orfeo_derive


def _numeric(values: list[str]):
    """The column as numbers when every non-empty cell is one, else None."""
    cells = [v.strip() for v in values]
    if not any(cells):
        return None
    try:
        return [float(v) if v else float("nan") for v in cells]
    except ValueError:
        return None


def read_table(path, required=()) -> pd.DataFrame:
    """Read a summary table; metadata lines go to ``df.attrs['meta']``.

    Numeric columns become floats (int when every value is integral), empty cells NaN.
    A malformed file raises DataFormatError naming the file and line.
    """
    path = Path(path)
    meta, header_line, header, all_rows = read_metadata_csv(path)
    if len(set(header)) != len(header) or any(not h for h in header):
        raise DataFormatError(path, header_line, f"header has empty or repeated names: {header}")
    for name in required:
        if name not in header:
            raise DataFormatError(path, header_line, f"missing column '{name}'")
    rows = []
    for n, row in all_rows:
        for name in required:
            if not row[header.index(name)].strip():
                raise DataFormatError(path, n, f"empty '{name}' (every row must say where it came from)")
        rows.append((n, row))
    columns = {}
    for j, name in enumerate(header):
        values = [row[j] for _, row in rows]
        nums = _numeric(values)
        if nums is None:
            columns[name] = [v.strip() for v in values]
        else:
            columns[name] = nums
    df = pd.DataFrame(columns, columns=header)
    for name in header:
        s = df[name]
        if s.dtype.kind == "f" and s.notna().all() and (s == s.round()).all():
            df[name] = s.astype("int64")
    df.attrs["meta"] = meta
    df.attrs["path"] = str(path)
    return df


def table_names() -> list[str]:
    """Names of the shipped summary tables (without .csv), catalog excluded."""
    return sorted(p.stem for p in TABLES_DIR.glob("*.csv") if p.stem != "catalog")


def summary_table(name: str) -> pd.DataFrame:
    """The shipped table ``data/orfeo/<name>.csv`` as a DataFrame (see read_table)."""
    path = TABLES_DIR / f"{name}.csv"
    if not path.exists():
        raise DataFormatError(path, 0, f"no summary table '{name}'; known: {table_names()}")
    return read_table(path, required=("source",))


# =============================================================================== the catalog
# One row per raw file of the ORFEO data (see /work/shared/orfeo/README.md): where it comes
# from (repository, commit, path), its sha256, what it measured and how to import it. It is
# generated from a mirror with `commbook data catalog --mirror DIR` using the rules below and
# committed; fetching checks every file against it.
CATALOG = TABLES_DIR / "catalog.csv"
CATALOG_COLUMNS = [
    "key", "dataset", "role", "repository", "commit", "path", "sha256", "size", "format",
    "benchmark", "algorithm", "machine", "mapping", "transport", "mpi_library", "units",
    "hints", "label_problem", "skip",
]
# Per-folder facts (from each PROVENANCE.md).
FOLDERS = {
    "matteoscorcia": dict(machine="orfeo-thin", mpi_library="Open MPI 4.1.1"),
    "francesc0rtu": dict(machine="orfeo-thin", mpi_library="Open MPI 4.1.1"),
    "thomasverardo": dict(machine="orfeo-thin", mpi_library="Open MPI 4.1.1"),
    "barbaralol": dict(machine="orfeo-thin", mpi_library="Open MPI 4.1.5"),
    "mzampar": dict(machine="orfeo-thin", mpi_library="Open MPI 4.1.6"),
    "giuliofantuzzi": dict(machine="orfeo-thin", mpi_library="Open MPI 4.1.5"),
    "marcobarrasso1": dict(machine="orfeo-thin", mpi_library="Open MPI 4.1.5"),
    "dododevs": dict(machine="orfeo-epyc", mpi_library="Open MPI"),
    "mmunini99": dict(machine="orfeo-epyc", mpi_library="Open MPI 4.1.6"),
    "edoardocortolezzis": dict(machine="orfeo-epyc", mpi_library="Open MPI 4.1.6"),
    "marcotallone": dict(machine="orfeo-epyc", mpi_library="Open MPI 4.1.5"),
    "valentinisalessio": dict(machine="orfeo-epyc", mpi_library="Open MPI 4.1.5"),
    "anankin12": dict(machine="orfeo-thin", mpi_library="Open MPI 4.1.5", transport="ucx"),
    "3sara": dict(machine="orfeo-epyc", mpi_library="Open MPI 4.1.5"),
    "gabrynho": dict(machine="", mpi_library="Open MPI 4.1.6"),
    "eruoppolo": dict(machine="orfeo-epyc", mpi_library="Open MPI 4.1.6"),
}
# Original repository paths differ from the mirror's for these folders.
PATH_FIXES = {"mmunini99": [("Project_1/", "Project 1/")]}

_VERARDO_OMPI_BLOCKS = ",".join(
    f"mapping:{m}|transport:{t}*10" for m, t in [
        ("node", "ucx"), ("node", "ucx(ib0)"), ("node", "ucx(br0)"), ("node", "ucx(mlx5_0:1)"),
        ("node", "ob1-tcp"), ("core", "ucx"), ("core", "ob1-tcp"), ("core", "ob1-vader"),
        ("socket", "ucx"), ("socket", "ob1-tcp"), ("socket", "ob1-vader")])
_VERARDO_TRANSPORT = {"tcp": "ob1-tcp", "vader": "ob1-vader", "ucx": "ucx", "ib0": "ucx(ib0)",
                      "br0": "ucx(br0)", "mlx5_0": "ucx(mlx5_0:1)"}
_EPYC_LAYOUT = ("mapping from the core number: EPYC cores 1-63 share core 0's socket, "
                "64-127 are on the other socket (marcotallone p2p channels)")

# (folder, regex on the path inside the folder, fields). Fields may use {group} from the
# regex; 'hints' is a ';'-separated list of importer hints; first matching rule wins.
RULES: list[tuple[str, str, dict]] = [
    # ---------------------------------------------------------------- matteoscorcia (21/22)
    ("matteoscorcia", r"section1/exercise1/ring_times\.csv", dict(
        dataset="matteoscorcia/ring", benchmark="ring", algorithm="nonblocking", mapping="unknown",
        units="Time in s (mean of 100000 rings, slowest rank)",
        hints="time_unit=s;reps=100000",
        label_problem="node type and mapping not recorded; the report (seeds/000 sec. 1) describes THIN nodes")),
    ("matteoscorcia", r"section1/exercise1/runtimes\.csv", dict(
        dataset="matteoscorcia/ring_runtime", benchmark="ring_runtime", algorithm="nonblocking",
        mapping="unknown", units="Time in s (whole call including setup)", hints="time_unit=s;reps=100000",
        label_problem="node type and mapping not recorded")),
    ("matteoscorcia", r"section1/exercise2/table\.csv", dict(
        dataset="matteoscorcia/matrix_add", benchmark="matrix_add", mapping="unknown",
        units="Matrix Time [sec] (scatter + add + gather); Runtime kept in params",
        hints="t_column=Matrix Time [sec];time_unit=s")),
    ("matteoscorcia", r"section2/thin/csv/openmpi/node-ob1-vader/.*", dict(
        dataset="matteoscorcia/pingpong", role="excluded", benchmark="pingpong",
        skip="no data: vader is shared-memory only, the inter-node run printed nothing (3 metadata lines)")),
    ("matteoscorcia", r"section2/(?P<m>thin|gpu)/csv/(?P<lib>openmpi|intel)/(?P<map>core|socket|node)-(?P<tr>[\w-]+)/[\w-]+-(?P<run>\d)\.csv", dict(
        dataset="matteoscorcia/pingpong", benchmark="pingpong", machine="orfeo-{m}", mapping="{map}",
        transport="{tr}", mpi_library="{lib}", units="t[usec] = half round trip, us; Mbytes/sec = 10^6 B/s",
        hints="params.run={run}")),
    ("matteoscorcia", r"section2/(?P<m>thin|gpu)/csv/mean/(?P<lib>openmpi|intel)/(?P<map>core|socket|node)-(?P<tr>[\w-]+)\.csv", dict(
        dataset="matteoscorcia/pingpong_mean", role="mean", benchmark="pingpong", machine="orfeo-{m}",
        mapping="{map}", transport="{tr}", mpi_library="{lib}", units="mean of the 5 runs, us",
        hints="reps=5;params.stat=mean of 5 runs")),
    ("matteoscorcia", r"section2/(?P<m>thin|gpu)/results/(?P<lib>openmpi|intel)/(?P<map>core|socket|node)-(?P<tr>[\w-]+)\.csv", dict(
        dataset="matteoscorcia/pingpong_model", role="mean", benchmark="pingpong", machine="orfeo-{m}",
        mapping="{map}", transport="{tr}", mpi_library="{lib}", units="mean of the 5 runs, us",
        hints="reps=5;params.stat=mean of 5 runs",
        label_problem="the student's fitted model columns are dropped (some fitted latencies are negative)")),
    ("matteoscorcia", r"section3/outputs/single_core_(?P<m>thin|gpu)\.txt", dict(
        dataset="matteoscorcia/jacobi", benchmark="jacobi", machine="orfeo-{m}", mapping="core",
        units="seconds per sweep -> us; MLUPs in params")),
    ("matteoscorcia", r"section3/outputs/(?P<n>\d+)-map-(?P<map>core|socket|node)(?P<gpu>-gpu)?\.txt", dict(
        dataset="matteoscorcia/jacobi", benchmark="jacobi", mapping="{map}",
        units="seconds per sweep -> us; MLUPs in params")),
    ("matteoscorcia", r"section3/csv/.*\.csv", dict(
        dataset="matteoscorcia/jacobi_model", role="excluded", benchmark="jacobi",
        skip="derived: the student's expected (model) vs measured MLUP/s, no times; the measured runs are imported from section3/outputs/*.txt")),
    # ------------------------------------------------------------------ francesc0rtu (21/22)
    ("francesc0rtu", r"es1/ring/results\.csv", dict(
        dataset="francesc0rtu/ring", benchmark="ring", machine="orfeo-thin", mapping="core",
        transport="ucx", units="s per ring (mean of 10000, slowest rank)",
        hints="time_unit=s;reps=10000;wide=MIN NB:nonblocking,MIN B:blocking",
        label_problem="header names 9 columns, rows have 5 (columns 4-5 repeat 2-3); 2 THIN nodes, --map-by core")),
    ("francesc0rtu", r"es1/matrix/results\.csv", dict(
        dataset="francesc0rtu/matrix_add", benchmark="matrix_add", machine="orfeo-thin", mapping="unknown",
        units="mintime in s (maximum over ranks despite the name)", hints="np=24;time_unit=s",
        label_problem="the first line is a tab-separated header that does not match the free-text lines")),
    ("francesc0rtu", r"es3/table\.csv", dict(
        dataset="francesc0rtu/jacobi_model", role="excluded", benchmark="jacobi",
        skip="derived: the student's model table (k, latency, bandwidth inputs) built from Results_Jacobi_GPU.csv, which is imported")),
    ("francesc0rtu", r"francescortu/section2/(?P<lib>IntelMPI|OpenMPI)/by_?(?P<map>core|socket|node)_(?P<tr>tcp|shm|infiniband|vader|ucx)(?P<var>_GPU|_NOCACHE)?\.csv", dict(
        dataset="francesc0rtu/pingpong", benchmark="pingpong", mapping="{map}", transport="{tr}",
        mpi_library="{lib}", units="t[usec] = half round trip, us", hints="params.variant={var}")),
    ("francesc0rtu", r"francescortu/section3/Results_Jacobi(?P<var>_GPU|_weak)?\.csv", dict(
        dataset="francesc0rtu/jacobi", benchmark="jacobi", units="MaxTime in s per sweep -> us",
        hints="t_column=MaxTime;time_unit=s;params.variant={var}")),
    # ----------------------------------------------------------------- thomasverardo (21/22)
    ("thomasverardo", r"Sec1/section1/data/(?P<set>test/)?data(?P<m>_thin|_gpu)?(?:_(?P<map>core|node|socket))?(?P<run>\d*)\.out", dict(
        dataset="thomasverardo/ring", benchmark="ring", algorithm="nonblocking", mapping="{map}",
        units="us per ring (slowest rank); see label_problem", hints="time_unit=us;params.run={run};params.set={set}",
        label_problem="time unit uncertain: ring_stats.cpp multiplies seconds by 1e9 (ns) while its comment says us; as ns a 2-process ring would take 8 ns, below any MPI latency, so us is assumed. One THIN node (nodes=1:ppn=24)")),
    ("thomasverardo", r"Sec1/section1/csv_out/(?P<lib>intel_)?(?P<m>gpu_|thin_)?(?P<map>core|socket|node|def)_?(?P<tr>tcp|ucx|vader|br0|ib0|mlx5_0)?\.csv", dict(
        dataset="thomasverardo/pingpong_mean", role="mean", benchmark="pingpong", mapping="{map}",
        transport="{tr}", mpi_library="{lib}", units="mean of 10 runs, us; decimal commas",
        hints="reps=10;params.stat=mean of 10 runs",
        label_problem="the student's model columns est_lat, est_band are dropped")),
    ("thomasverardo", r"Sec2/total_stats_(?P<m>thin|gpu)_openmpi\.csv", dict(
        dataset="thomasverardo/pingpong", benchmark="pingpong", machine="orfeo-{m}",
        mpi_library="Open MPI 4.0.5", units="t[usec] = half round trip, us",
        hints="blocks=" + _VERARDO_OMPI_BLOCKS,
        label_problem="block labels from the verified block order (node ucx, ib0, br0, mlx5_0, tcp, then core and socket)")),
    ("thomasverardo", r"Sec2/total_stats_gpu_intelmpi\.csv", dict(
        dataset="thomasverardo/pingpong", benchmark="pingpong", machine="orfeo-gpu", mpi_library="Intel MPI",
        units="t[usec] = half round trip, us",
        hints="blocks=mapping:node|transport:default|params.variant:def*10,mapping:core|transport:default*10,mapping:node|transport:default*10,mapping:socket|transport:default*10")),
    ("thomasverardo", r"Sec2/total_stats_thin_intelmpi\.csv", dict(
        dataset="thomasverardo/pingpong", benchmark="pingpong", machine="orfeo-thin", mpi_library="Intel MPI",
        units="t[usec] = half round trip, us",
        hints="blocks=mapping:node|transport:default|params.variant:def*12,mapping:core|transport:default|params.label:inferred*12,mapping:node|transport:default|params.label:inferred*12,mapping:socket|transport:default|params.label:inferred*12",
        label_problem="groups 2-4 do not match the committed intel_thin_{core,node,socket}.csv; their labels core, node, socket are inferred")),
    ("thomasverardo", r"Sec1/matrix/data_matrix\.csv", dict(
        dataset="thomasverardo/matrix_add", benchmark="matrix_add", mapping="unknown",
        units="s, 10 repetitions per np summarised", hints="time_unit=s;series=matrix:2400x100x100,matrix:1200x200x100,matrix:800x300x100")),
    ("thomasverardo", r"Sec1/matrix/data_matrix_(?P<var>\w+)\.csv", dict(
        dataset="thomasverardo/matrix_add", benchmark="matrix_add", mapping="unknown",
        units="s, 10 repetitions per np summarised", hints="time_unit=s;params.variant={var}",
        label_problem="matrix size not recorded")),
    ("thomasverardo", r"Sec3/jacobi_test/(?P<d>thin|gpu)/(?:gpu_)?error(?:thin_)?(?P<map>core|socket|node)_.*\.out", dict(
        dataset="thomasverardo/jacobi_elapsed", benchmark="jacobi_elapsed", machine="orfeo-{d}", mapping="{map}",
        mpi_library="Open MPI 4.0.3", units="/usr/bin/time elapsed s of the whole run -> us",
        hints="params.L_per_process=700")),
    ("thomasverardo", r"Sec3/jacobi_test/gpu/errcore_thin1\.out", dict(
        dataset="thomasverardo/jacobi_elapsed", benchmark="jacobi_elapsed", machine="orfeo-gpu", mapping="core",
        mpi_library="Open MPI 4.0.3", units="/usr/bin/time elapsed s -> us",
        label_problem="1-process run stored with the GPU runs; the name says thin")),
    ("thomasverardo", r"Sec3/jacobi_test/gpu/core_thin1\.out", dict(
        dataset="thomasverardo/jacobi", benchmark="jacobi", machine="orfeo-gpu", mapping="core",
        mpi_library="Open MPI 4.0.3", units="seconds per sweep -> us",
        label_problem="1-process run stored with the GPU runs; the name says thin")),
    ("thomasverardo", r"Sec3/jacobi_test/(?P<d>thin|gpu)/(?:thin|gpu)_(?P<map>core|socket|node)_.*\.out", dict(
        dataset="thomasverardo/jacobi", benchmark="jacobi", machine="orfeo-{d}", mapping="{map}",
        mpi_library="Open MPI 4.0.3", units="seconds per sweep -> us; weak scaling, 700^3 points per process",
        hints="params.L_per_process=700")),
    ("thomasverardo", r"Sec3/jacobi_test/\w+\.csv", dict(
        dataset="thomasverardo/jacobi_summary", role="excluded", benchmark="jacobi",
        skip="derived: the student's summary of the jacobi_test/*/*.out files, which are imported")),
    ("thomasverardo", r"Sec3/Data/data/\w+_model\.csv", dict(
        dataset="thomasverardo/jacobi_model", role="excluded", benchmark="jacobi",
        skip="derived: the student's model table; its measured columns come from jacobi_test/*/*.out, which are imported")),
    # -------------------------------------------------------------------- barbaralol (23/24)
    ("barbaralol", r"exercise_1/bcast/(?P<stamp>\d+_\d+)_thin_bcast(?P<a>\d)_msize\.txt", dict(
        dataset="barbaralol/bcast", benchmark="bcast", algorithm="{a}", mapping="core",
        units="us, np = line + 1", hints="np_start=2;np_step=1;size_bytes=2;params.run={stamp}")),
    ("barbaralol", r"exercise_1/gather/(?P<stamp>\d+_\d+)_thin_gather(?P<a>\d)_msize\.txt", dict(
        dataset="barbaralol/barrier", benchmark="barrier", algorithm="default", mapping="core",
        units="us, np = 2 x line", hints=f"np_start=2;np_step=2;size_bytes=0;params.run={{stamp}};params.label_fix=file says gather{{a}} but the job ran osu_barrier",
        label_problem="labelled gather, measured with osu_barrier (gather.job); relabelled barrier, default algorithm (the gather algorithm setting has no effect on a barrier)")),
    ("barbaralol", r"exercise_1/\d+_\d+_latency_thin\.txt", dict(
        dataset="barbaralol/latency", benchmark="latency", mapping="node",
        units="us (osu_latency)", hints="params.pinning=requested but not applied",
        label_problem="'core 0 to core N' labels not applied: all blocks are inter-node numbers (about 1.0 us at 1 B); relabelled mapping node")),
    # ---------------------------------------------------------------------- dododevs (23/24)
    ("dododevs", r"exercise1/data/(?P<stamp>\d+_\d+)_bcast(?P<a>\d)_msize(?P<s>\d)\.txt", dict(
        dataset="dododevs/bcast", benchmark="bcast", algorithm="{a}", mapping="core",
        units="us, np = line number (first value np 2)", hints="np_start=2;np_step=1;size_bytes={s};params.run={stamp}",
        label_problem="no np column: np = line number assumed (osu_bcast prints nothing for np 1)")),
    ("dododevs", r"exercise1/data/(?P<stamp>\d+_\d+)_epyc_barrier(?P<a>\d)_msize2\.txt", dict(
        dataset="dododevs/barrier", benchmark="barrier", algorithm="default", mapping="core",
        units="us, np = line number", hints="np_start=2;np_step=1;size_bytes=0;params.run={stamp};params.label_fix=file says barrier{a} but the job set coll_tuned_bcast_algorithm",
        label_problem="the job set coll_tuned_bcast_algorithm, not the barrier one: all four files measure the default barrier; relabelled default")),
    ("dododevs", r"exercise1/data/\d+_\d+_latency_epyc_msize2\.txt", dict(
        dataset="dododevs/latency", benchmark="latency", units="us, 2-byte osu_latency core 0 to core cpu",
        hints="size_bytes=2;fix=epyc_core_layout", label_problem=_EPYC_LAYOUT)),
    # ----------------------------------------------------------------------- mzampar (23/24)
    ("mzampar", r"Excercise_1/bcast/results/bcast_linear\.csv", dict(
        dataset="mzampar/bcast", benchmark="bcast", units="us", hints="fix=linear_is_binomial",
        label_problem="'linear' was run with coll_tuned_bcast_algorithm 6 (binomial); relabelled binomial")),
    ("mzampar", r"Excercise_1/bcast/results/bcast_\w+\.csv", dict(
        dataset="mzampar/bcast", benchmark="bcast", units="us")),
    ("mzampar", r"Excercise_1/latency/slurm_latency", dict(
        dataset="mzampar/latency", benchmark="latency", mapping="unknown", format="osu",
        units="us, every core pair i<j of one THIN node", hints="params.nodes=1")),
    ("mzampar", r"Excercise_1/latency/latency_data_single_node\.csv", dict(
        dataset="mzampar/latency", role="excluded", benchmark="latency",
        skip="duplicate: the slurm_latency log converted to csv; the log is imported")),
    ("mzampar", r"Excercise_1/latency/(slurm_latency_2_nodes|latency_data_two_nodes\.csv)", dict(
        dataset="mzampar/latency_2nodes", role="excluded", benchmark="latency",
        skip="faulty run: about 4 ms at 1 B, three orders of magnitude above InfiniBand latency, stopped after 113 pairs")),
    # ----------------------------------------------------------------- giuliofantuzzi (23/24)
    ("giuliofantuzzi", r"exercise1/(?P<b>bcast|barrier)/results_\w+/\w+\.csv", dict(
        dataset="giuliofantuzzi/{b}", benchmark="{b}", units="us (average)")),
    # ----------------------------------------------------------------- marcobarrasso1 (23/24)
    ("marcobarrasso1", r"ex1/(?:broadcast|gather)/results/(?P<b>bcast|gather)_(?P<map>core|socket|node)\.csv", dict(
        dataset="marcobarrasso1/{b}", benchmark="{b}", mapping="{map}", units="us, 1-byte message",
        hints="size_bytes=1", label_problem="gather_core/gather_node declare a 'sync' column without values")),
    # ------------------------------------------------------------------- marcotallone (23/24)
    ("marcotallone", r"LICENSE", dict(
        dataset="marcotallone/license", role="license", skip="license text (MIT), kept with the marcotallone data")),
    ("marcotallone", r"exercise1/datasets/(?P<b>bcast|reduce)_(?P<map>core|socket|node)\.csv", dict(
        dataset="marcotallone/{b}", benchmark="{b}", mapping="{map}", units="us; min, max over ranks",
        label_problem="duplicate (np, size) keys: some combinations were run more than once")),
    ("marcotallone", r"exercise1/datasets/nbft\.csv", dict(
        dataset="marcotallone/bcast_channels", benchmark="bcast", algorithm="1", units="us",
        hints="params.receivers=pinned in one channel")),
    ("marcotallone", r"exercise1/datasets/nbft_reduce\.csv", dict(
        dataset="marcotallone/reduce_channels", benchmark="reduce", algorithm="1", units="us",
        hints="params.receivers=pinned in one channel")),
    ("marcotallone", r"exercise1/datasets/p2p\.csv", dict(
        dataset="marcotallone/latency", benchmark="latency", units="us; P50/P95/P99 in params")),
    # ---------------------------------------------------------------------- mmunini99 (23/24)
    ("mmunini99", r"Project_1/output/broadcast_\w+/broadcast_algo(?P<a>\d)_\w+\.csv", dict(
        dataset="mmunini99/bcast", benchmark="bcast", algorithm="algo{a}", mapping="core", units="us",
        hints="fix=mmunini_bcast", label_problem="algo1/2/3 are file labels: algorithms 1, 3, 5 per the committed scripts")),
    ("mmunini99", r"Project_1/output/reduce_\w+/reduce_algo(?P<a>\d)_\w+\.csv", dict(
        dataset="mmunini99/reduce", benchmark="reduce", algorithm="algo{a}", mapping="core", units="us",
        hints="fix=mmunini_reduce", label_problem="algo1/2/3 are file labels: algorithms 4, 5, 7 per the committed scripts")),
    ("mmunini99", r"Project_1/output/latency\.txt", dict(
        dataset="mmunini99/latency", benchmark="latency", units="us, 2-byte osu_latency core 0 to core N",
        hints="fix=epyc_core_layout", label_problem=_EPYC_LAYOUT)),
    # ------------------------------------------------------------- edoardocortolezzis (23/24)
    ("edoardocortolezzis", r"ex1/results/(?P<b>bcast|gather)(?P<a>\d)_(?P<v>fixed|var)_core\.csv", dict(
        dataset="edoardocortolezzis/{b}", benchmark="{b}", algorithm="{a}", mapping="core", units="us",
        hints="params.sweep={v}")),
    # ---------------------------------------------------------------------- eruoppolo (23/24)
    ("eruoppolo", r"ex1/results/(?P<b>bcast|scatter)/.*?(?P<bind>bind_)?(?:bcast|scatter)(?P<a>\d)_(?:fixed_(?P<map>core|socket)|core_mapping_epyc)\.csv", dict(
        dataset="eruoppolo/{b}", benchmark="{b}", algorithm="{a}", mapping="{map}", units="us",
        hints="params.report_bindings={bind}")),
    # -------------------------------------------------------------------------- 3sara (23/24)
    ("3sara", r"exercise1/bcast_data/b(?P<a>\d)_epyc_map_by_core\.csv", dict(
        dataset="3sara/bcast", benchmark="bcast", algorithm="{a}", mapping="core", units="us")),
    ("3sara", r"exercise1/bcast_data/epyc_b(?P<a>\d)_fixsize\.csv", dict(
        dataset="3sara/bcast_fixed", benchmark="bcast", algorithm="{a}", mapping="core", units="us",
        hints="params.size=not recorded", label_problem="the fixed message size is not recorded (size_bytes 0 stands for unknown)")),
    ("3sara", r"exercise1/scatter_data/thin_s(?P<a>\d)_map_by_core\.csv", dict(
        dataset="3sara/scatter", benchmark="scatter", algorithm="{a}", machine="orfeo-thin", mapping="core", units="us")),
    ("3sara", r"exercise1/scatter_data/scatterfix(?P<a>\d)\.csv", dict(
        dataset="3sara/scatter_fixed", benchmark="scatter", algorithm="{a}", machine="orfeo-thin", mapping="core",
        units="us", hints="params.size=not recorded",
        label_problem="the fixed message size is not recorded (size_bytes 0 stands for unknown)")),
    # ---------------------------------------------------------------------- gabrynho (23/24)
    ("gabrynho", r"Exercise_1/results/(?P<m>thin|epyc)(?P<core>_core)?_result\.csv", dict(
        dataset="gabrynho/bcast_allreduce", machine="orfeo-{m}", mapping="core", units="us; min, max",
        hints="fix=gabrynho_allreduce",
        label_problem="'Reduce' rows were measured with osu_allreduce and the reduce algorithm setting: relabelled allreduce, default algorithm; epyc_result.csv used --map-by socket:PE=16")),
    ("gabrynho", r"Exercise_1/results/fat(?P<core>_core)?_result\.csv", dict(
        dataset="gabrynho/bcast_allreduce", machine="orfeo-fat", mapping="unknown", units="us; min, max",
        hints="fix=gabrynho_allreduce",
        label_problem="'Reduce' rows are osu_allreduce (relabelled allreduce, default algorithm); which fat script variant (--map-by numa or core) produced which file is not documented")),
    # --------------------------------------------------------------------- anankin12 (23/24)
    ("anankin12", r"Ex1/(?P<b>bcast|barrier)/results_\w+/\w+_(?P<stamp>\d{14})\.csv", dict(
        dataset="anankin12/{b}", benchmark="{b}", units="us", hints="params.run={stamp}")),
    ("anankin12", r"Ex1/latency/results_latenza/latenza_magra_20240514_223303\.csv", dict(
        dataset="anankin12/latency", benchmark="latency", mapping="node", units="us",
        label_problem="two-node script (--map-by ppr:1:node): all 47 'pairs' are inter-node; relabelled mapping node")),
    ("anankin12", r"Ex1/latency/results_latenza/latenza_magra_\w+\.(csv|txt)", dict(
        dataset="anankin12/latency", benchmark="latency", mapping="unknown", units="us",
        label_problem="messy: junk '#' rows, isolated 12 ms outliers, header with 3 names for 4 fields")),
    # ------------------------------------------------------------- valentinisalessio (23/24)
    ("valentinisalessio", r"exercise1/results_def/(?P<b>bcast|barrier)_\w+?_results_wu_(?:core|socket|node)\.csv", dict(
        dataset="valentinisalessio/{b}", benchmark="{b}", units="us",
        label_problem="assembled from restarted jobs: some np missing, some (np, size) duplicated")),
    ("valentinisalessio", r"exercise1/results_def/barrier_\w+?_results_wu\.csv", dict(
        dataset="valentinisalessio/barrier_earlier", benchmark="barrier", units="us",
        hints="params.set=earlier runs",
        label_problem="an earlier, separate set of runs; header names a MessageSize column that no row has")),
]


def _subst(text: str, groups: dict) -> str:
    """'{map}' -> the regex group's value; unknown {names} are left alone."""
    return re.sub(r"\{(\w+)\}", lambda m: (groups.get(m.group(1)) or "") if m.group(1) in groups
                  else m.group(0), text)


def _provenance(folder_dir: Path) -> tuple[str, str]:
    text = (folder_dir / "PROVENANCE.md").read_text(encoding="utf-8")
    repo = re.search(r"Repository:\s*https://github\.com/([\w.-]+/[\w.-]+)", text)
    commit = re.search(r"Commit read:\s*`([0-9a-f]{40})`", text)
    if not repo or not commit:
        raise DataFormatError(folder_dir / "PROVENANCE.md", 0, "no 'Repository:' or 'Commit read:' line")
    return repo.group(1), commit.group(1)


def sha256_of(path) -> str:
    from pooch import file_hash
    return file_hash(str(path), alg="sha256")


def _classify(folder: str, rel: str) -> dict:
    for rule_folder, pattern, fields in RULES:
        if rule_folder != folder:
            continue
        m = re.fullmatch(r"(?:.*/)?" + pattern, rel)
        if not m:
            continue
        groups = {k: (v or "") for k, v in m.groupdict().items()}
        out = {k: _subst(v, groups) for k, v in fields.items()}
        return _post(folder, rel, out)
    raise DataFormatError(f"{folder}/{rel}", 0, "no catalog rule matches this file")


def _post(folder: str, rel: str, f: dict) -> dict:
    """Normalise what the rules produced: machine, library, transport, mapping, params."""
    from .importers import canonical_mapping, infer_machine
    facts = FOLDERS[folder]
    f.setdefault("role", "raw")
    lib = f.get("mpi_library", "")
    if norm := lib.lower().replace("_", "").replace(" ", ""):
        f["mpi_library"] = "Intel MPI" if norm.startswith("intel") else (
            facts["mpi_library"] if norm in ("openmpi",) else lib)
    else:
        f["mpi_library"] = facts["mpi_library"]
    intel = f["mpi_library"].startswith("Intel")
    machine = f.get("machine", "")
    if not re.fullmatch(r"orfeo-(thin|gpu|epyc|fat)", machine):
        f["machine"] = infer_machine(machine) or infer_machine(rel) or facts["machine"]
    tr = f.get("transport", "") or facts.get("transport", "")
    if folder == "francesc0rtu" and not intel:
        tr = {"tcp": "ob1-tcp", "vader": "ob1-vader"}.get(tr, tr)
    if folder == "thomasverardo" and "csv_out" in rel:
        tr = "default" if intel else _VERARDO_TRANSPORT.get(tr, tr)
        if not intel:
            f["mpi_library"] = "Open MPI 4.0.5"  # the ping-pong job scripts' module
    if tr == "infiniband":
        tr = "default"
        f["label_problem"] = ("Intel MPI run without I_MPI_OFI_PROVIDER (the file name says "
                              "'infiniband'): the library's default provider")
    f["transport"] = tr
    hints = f.get("hints", "")
    mapping = f.get("mapping", "")
    if mapping == "def":  # Intel MPI run with -ppn 1: one rank per node
        mapping, hints = "node", (hints + ";params.variant=def").strip(";")
    f["mapping"] = canonical_mapping(mapping)[0] if mapping else ""
    items = []
    for item in filter(None, hints.split(";")):
        k, _, v = item.partition("=")
        if k.startswith("params."):
            v = v.strip("_/").lower() if k in ("params.variant", "params.set") else v.strip("_/")
            if not v:
                continue
        items.append(f"{k}={v}")
    f["hints"] = ";".join(items)
    if f["role"] in ("excluded", "license"):
        f.setdefault("skip", "not imported")
    return f


def build_catalog(mirror) -> pd.DataFrame:
    """Classify and hash every data file of a mirror laid out like /work/shared/orfeo."""
    from .importers import Refused, detect_format, read_text
    mirror = Path(mirror)
    rows = []
    for folder in sorted(FOLDERS):
        fdir = mirror / folder
        if not fdir.is_dir():
            raise DataFormatError(fdir, 0, "folder missing from the mirror")
        repo, commit = _provenance(fdir)
        for path in sorted(p for p in fdir.rglob("*") if p.is_file() and p.name != "PROVENANCE.md"):
            rel = path.relative_to(fdir).as_posix()
            f = _classify(folder, rel)
            original = rel
            for old, new in PATH_FIXES.get(folder, []):
                original = original.replace(old, new)
            if not f.get("skip") and not f.get("format"):
                try:
                    f["format"] = detect_format(read_text(path), path)
                except Refused:
                    f["format"] = ""
            rows.append({**{c: "" for c in CATALOG_COLUMNS}, **f, "key": f"{folder}/{rel}",
                         "repository": repo, "commit": commit, "path": original,
                         "sha256": sha256_of(path), "size": path.stat().st_size})
    return pd.DataFrame(rows, columns=CATALOG_COLUMNS)


def write_catalog(df: pd.DataFrame, path=CATALOG) -> Path:
    from .data import atomic_write_text
    import io
    buf = io.StringIO()
    buf.write("# what: every raw ORFEO data file the book can use: origin, sha256, what it measured, how to import it\n")
    buf.write("# source: public student repositories (repository, commit, path); generated by `commbook data catalog --mirror DIR`\n")
    buf.write("# units: size in bytes; 'units' says what the file's times are; 'hints' are importer hints (key=value;...)\n")
    buf.write("# roles: raw = measurements; mean = a student's mean of raw runs; excluded/license = not imported ('skip' says why)\n")
    df.to_csv(buf, index=False, lineterminator="\n")
    atomic_write_text(path, buf.getvalue())
    return Path(path)


@functools.lru_cache(maxsize=4)
def _catalog_cached(path: str, mtime: float) -> pd.DataFrame:
    df = read_table(path, required=("key", "sha256", "repository", "commit", "path"))
    for c in CATALOG_COLUMNS:
        if c not in df.columns:
            raise DataFormatError(path, 0, f"catalog has no '{c}' column")
        if c != "size":
            df[c] = df[c].astype(str).where(df[c].notna(), "").replace("nan", "")
    bad = ~df["sha256"].str.fullmatch(r"[0-9a-f]{64}")
    if bad.any():
        raise DataFormatError(path, 0, f"row for '{df.key[bad].iloc[0]}' has no valid sha256")
    return df


def catalog(path=None) -> pd.DataFrame:
    """The catalog of raw ORFEO files (data/orfeo/catalog.csv)."""
    path = Path(path or CATALOG)
    if not path.exists():
        raise DataFormatError(path, 0, "no catalog (generate it with `commbook data catalog --mirror DIR`)")
    return _catalog_cached(str(path), path.stat().st_mtime).copy()


def entry(key: str) -> pd.Series:
    cat = catalog()
    hit = cat[cat.key == key]
    if hit.empty:
        raise KeyError(f"'{key}' is not in the ORFEO catalog")
    return hit.iloc[0]


def source_of(e) -> str:
    return f"{e['repository']}@{e['commit'][:7]}:{e['path']}"


# ------------------------------------------------------------------ importer hints and fixes
def _add_param(df: pd.DataFrame, mask, text: str) -> pd.DataFrame:
    cur = df.loc[mask, "params"]
    df.loc[mask, "params"] = cur.where(cur == "", cur + ";") + text
    return df


def _set_algorithm(df, mask, name, ident, note):
    df.loc[mask, "algorithm"] = name
    df.loc[mask, "params"] = df.loc[mask, "params"].str.replace(
        r"coll_tuned_id=\d+", f"coll_tuned_id={ident}", regex=True)
    return _add_param(df, mask, note)


def _fix_linear_is_binomial(df):
    mask = df.algorithm == "basic_linear"
    return _set_algorithm(df, mask, "binomial", 6, "label_fix=file says linear; job set algorithm 6")


def _fix_gabrynho_allreduce(df):
    mask = df.benchmark == "reduce"
    df.loc[mask, "benchmark"] = "allreduce"
    df.loc[mask, "algorithm"] = "default"
    df.loc[mask, "params"] = df.loc[mask, "params"].str.replace(
        r"coll_tuned_id=(\d+)", r"requested_reduce_algorithm=\1", regex=True)
    return _add_param(df, mask, "label_fix=labelled Reduce; measured with osu_allreduce")


def _algo_map(table: dict, bench: str):
    from .importers import COLL_TUNED

    def fix(df):
        for label, ident in table.items():
            mask = df.algorithm == label
            df = _set_algorithm(df, mask, COLL_TUNED[bench][ident], ident, "") if mask.any() else df
            df.loc[mask, "params"] = df.loc[mask, "params"].str.rstrip(";")
            if "coll_tuned_id" not in "".join(df.loc[mask, "params"].head(1)):
                df = _add_param(df, mask, f"coll_tuned_id={ident}")
            df = _add_param(df, mask, f"file_label={label}")
        return df
    return fix


def _fix_epyc_core_layout(df):
    core_to = df.params.str.extract(r"core_to=(\d+)")[0].astype(float)
    df.loc[core_to < 64, "mapping"] = "core"
    df.loc[core_to >= 64, "mapping"] = "socket"
    return df


FIXES = {
    "linear_is_binomial": _fix_linear_is_binomial,
    "gabrynho_allreduce": _fix_gabrynho_allreduce,
    "mmunini_bcast": _algo_map({"algo1": 1, "algo2": 3, "algo3": 5}, "bcast"),
    "mmunini_reduce": _algo_map({"algo1": 4, "algo2": 5, "algo3": 7}, "reduce"),
    "epyc_core_layout": _fix_epyc_core_layout,
}


def hints_for(e) -> dict:
    """Importer hints for one catalog entry (a row of catalog())."""
    h: dict = {"source": source_of(e), "infer_name": True}
    if e["skip"]:
        h["skip"] = e["skip"]
    for c in ("format", "benchmark", "algorithm", "mapping", "transport", "machine", "mpi_library"):
        if e[c]:
            h[c] = e[c]
    params = {}
    for item in filter(None, str(e["hints"]).split(";")):
        k, _, v = item.partition("=")
        if k.startswith("params."):
            params[k[7:]] = v
        elif k in ("np_start", "np_step", "size_bytes", "reps", "np"):
            h[k] = int(v)
        elif k == "wide":
            h[k] = dict(x.split(":", 1) for x in v.split(","))
        elif k in ("blocks", "series"):
            labels = []
            for x in v.split(","):
                label, star, count = x.rpartition("*")
                labels += [label] * int(count) if star else [x]
            h[k] = labels
        elif k == "fix":
            h[k] = FIXES[v]
        else:
            h[k] = v
    if params:
        h["params"] = params
    return h


@functools.lru_cache(maxsize=2)
def _by_sha(path: str, mtime: float) -> dict:
    cat = _catalog_cached(path, mtime)
    return {sha: i for i, sha in enumerate(cat.sha256)}


def lookup(path) -> pd.Series | None:
    """The catalog entry of a file with the same bytes, or None (an unknown file)."""
    if not CATALOG.exists():
        return None
    p = Path(path)
    try:
        if p.stat().st_size > 50 << 20:
            return None
        sha = sha256_of(p)
    except OSError:
        return None
    index = _by_sha(str(CATALOG), CATALOG.stat().st_mtime)
    if sha not in index:
        return None
    return _catalog_cached(str(CATALOG), CATALOG.stat().st_mtime).iloc[index[sha]]


# ----------------------------------------------------------------------------------- fetch
class FetchError(RuntimeError):
    """A catalogued file that could not be fetched or failed its sha256 check (one line)."""


def mirror_from_env() -> str | None:
    """$COMMBOOK_ORFEO_MIRROR, or None when unset or 'none' (offline: no mirror, no download)."""
    value = os.environ.get("COMMBOOK_ORFEO_MIRROR", "").strip()
    return None if value.lower() in ("", "none") else value


def cache_dir(cache=None) -> Path:
    return Path(cache or os.environ.get("COMMBOOK_DATA_CACHE") or
                Path.home() / ".cache" / "commbook" / "orfeo")


def raw_url(e) -> str:
    return f"https://raw.githubusercontent.com/{e['repository']}/{e['commit']}/{quote(e['path'])}"


def _copy_downloader(url, output_file, pooch_obj, check_only=False):
    """pooch downloader for a local mirror directory: 'url' is a file path."""
    src = Path(url)
    if check_only:
        return src.is_file()
    if not src.is_file():
        raise FileNotFoundError(f"not in the mirror: {src}")
    if hasattr(output_file, "write"):
        output_file.write(src.read_bytes())
    else:
        shutil.copyfile(src, output_file)
    return None


def fetch_one(e, mirror=None, cache=None) -> Path:
    """Download one catalogued file into the cache and check its sha256 (pooch)."""
    import pooch
    pooch.get_logger().setLevel("WARNING")  # one summary line from us, not one per file
    target = cache_dir(cache) / e["key"]
    mirror = mirror if mirror is not None else mirror_from_env()
    downloader = None
    if mirror and not re.match(r"https?://", str(mirror)):
        url, downloader = str(Path(mirror) / e["key"]), _copy_downloader
    elif mirror:
        url = str(mirror).rstrip("/") + "/" + quote(e["key"])
    else:
        url = raw_url(e)
    try:
        got = pooch.retrieve(url, known_hash=f"sha256:{e['sha256']}", fname=target.name,
                             path=target.parent, downloader=downloader, progressbar=False)
    except ValueError as err:
        if "hash" in str(err).lower():
            raise FetchError(f"{e['key']}: sha256 mismatch: the copy at {url} is not the "
                             f"catalogued version (expected {e['sha256'][:16]}...)") from None
        raise FetchError(f"{e['key']}: {err}") from None
    except FileNotFoundError as err:
        raise FetchError(f"{e['key']}: {err}") from None
    except Exception as err:  # requests' HTTP and connection errors
        raise FetchError(f"{e['key']}: cannot download {url}: {_why(err)}") from None
    return Path(got)


def _why(err) -> str:
    text = str(err)
    status = getattr(getattr(err, "response", None), "status_code", None)
    if status:
        return f"HTTP {status}"
    if "Failed to resolve" in text or "Name or service not known" in text:
        return "host not found (no network?)"
    if "Connection refused" in text:
        return "connection refused"
    if "timed out" in text.lower():
        return "timed out"
    return f"{type(err).__name__}: {text.splitlines()[0][:120] if text else ''}"


def fetch(keys=None, mirror=None, cache=None, on_error=None) -> tuple[list[Path], list[str]]:
    """Fetch catalogued files (all, or the given keys); returns (paths, error lines)."""
    cat = catalog()
    if keys is not None:
        cat = cat[cat.key.isin(list(keys))]
    paths, errors, unreachable = [], [], 0
    for _, e in cat.iterrows():
        try:
            paths.append(fetch_one(e, mirror, cache))
            unreachable = 0
        except FetchError as err:
            errors.append(str(err))
            if on_error:
                on_error(str(err))
            unreachable = unreachable + 1 if ("host not found" in str(err)
                                              or "connection refused" in str(err)) else 0
            if unreachable == 3:  # the server is not there; do not print a line per file
                rest = len(cat) - len(paths) - len(errors)
                if rest:
                    msg = f"stopped: 3 files in a row could not reach the server; {rest} not tried"
                    errors.append(msg)
                    if on_error:
                        on_error(msg)
                break
    return paths, errors


_VERIFIED: set = set()


def raw_dataset(key: str, cache=None, fetch_missing: bool = True) -> Path | None:
    """The cached raw file of a catalog key, fetched from $COMMBOOK_ORFEO_MIRROR when needed.

    None when it is not cached and no mirror is configured (or fetching fails)."""
    e = entry(key)
    path = cache_dir(cache) / key
    if path.is_file():
        if (str(path), e["sha256"]) in _VERIFIED or sha256_of(path) == e["sha256"]:
            _VERIFIED.add((str(path), e["sha256"]))
            return path
    if fetch_missing and mirror_from_env():
        try:
            got = fetch_one(e, cache=cache)
        except FetchError:
            return None
        _VERIFIED.add((str(got), e["sha256"]))
        return got
    return None


# ------------------------------------------------------------------------------------ load
class DataUnavailable(LookupError):
    """Neither raw ORFEO data nor a shipped summary table can answer the request."""


def _select(key_or_benchmark: str, roles) -> pd.DataFrame:
    cat = catalog()
    usable = cat[cat.skip == ""]
    if key_or_benchmark in set(cat.key):
        return cat[cat.key == key_or_benchmark]
    if key_or_benchmark in set(cat.dataset):  # a dataset named explicitly: whatever its role
        return usable[usable.dataset == key_or_benchmark]
    from .importers import canonical_benchmark
    bench = canonical_benchmark(key_or_benchmark)
    sel = usable[(usable.benchmark == bench) | (usable.dataset.str.contains(bench, regex=False)
                                               & (usable.benchmark == ""))]
    return sel[sel.role.isin(roles)] if roles else sel


def import_entry(e, path) -> pd.DataFrame:
    """Tidy rows of one catalogued raw file (its catalog hints applied), with its 'dataset'."""
    from .importers import import_file
    return import_file(path, hints=hints_for(e)).assign(dataset=e["dataset"])


@functools.lru_cache(maxsize=32)
def _import_entries(keys: tuple, cache_key: str) -> pd.DataFrame:
    tables = []
    for key in keys:
        e = entry(key)
        tables.append(import_entry(e, raw_dataset(key)))
    return pd.concat(tables, ignore_index=True)


def _derived_text(path: Path) -> str:
    try:
        data = path.read_bytes()
        return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as e:
        raise DataFormatError(path, 0, f"cannot read derived table: {e}") from None


@functools.lru_cache(maxsize=32)
def _derived_cached(path: str, mtime: float) -> pd.DataFrame:
    from .data import FLOAT_COLUMNS, INT_COLUMNS
    text = _derived_text(Path(path))
    lines = text.splitlines(keepends=True)
    skip = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    ints = INT_COLUMNS + ["runs", "files", "rows"]
    try:
        df = pd.read_csv(io.StringIO("".join(lines[skip:])), keep_default_na=False, dtype=str)
        for c in df.columns:
            if c in ints:
                df[c] = df[c].astype("int64")
            elif c in FLOAT_COLUMNS:
                df[c] = df[c].astype(float)
    except (ValueError, pd.errors.ParserError) as e:
        raise DataFormatError(path, skip + 1, f"malformed derived table: {e}") from None
    return df


def derived_table(name: str) -> pd.DataFrame:
    """data/orfeo/derived/<name>.csv.gz (a benchmark) or index.csv, as a DataFrame."""
    path = DERIVED_DIR / (name if name.endswith(".csv") else f"{name}.csv.gz")
    if not path.is_file():
        raise DataUnavailable(f"no derived ORFEO table {path.name} in {DERIVED_DIR} "
                              f"(regenerate with `commbook data derive`)")
    return _derived_cached(str(path), path.stat().st_mtime).copy()


def _repositories(sel: pd.DataFrame) -> str:
    repos = sorted(set(sel.repository))
    return (f"{len(repos)} student repositor{'y' if len(repos) == 1 else 'ies'} "
            f"({', '.join(r.split('/')[0] for r in repos)})")


def _load_derived(sel: pd.DataFrame, machine: str | None) -> tuple[pd.DataFrame, str]:
    index = derived_table("index.csv")
    datasets = set(sel.dataset)
    benches = sorted(set(index[index.dataset.isin(datasets)].benchmark))
    if not benches:
        raise DataUnavailable(f"no derived ORFEO rows for {sorted(datasets)}")
    df = pd.concat([derived_table(b) for b in benches], ignore_index=True)
    df = df[df.dataset.isin(datasets)]
    cat = catalog()
    whole = cat[(cat.skip == "") & cat.dataset.isin(datasets) & cat.role.isin(["raw", "mean"])]
    if set(whole.key) != set(sel.key):  # only some files of a dataset: keep the rows from them
        wanted = set(sel.path)
        df = df[df.source.str.partition(":")[2].str.split("|").map(lambda ps: bool(wanted & set(ps)))]
    if machine:
        df = df[df.machine == machine]
    if df.empty:
        raise DataUnavailable(f"no derived ORFEO rows for {sorted(datasets)}"
                              f"{f' on {machine}' if machine else ''}")
    caption = (f"ORFEO data: {len(df)} rows derived from {len(sel)} raw file(s) of "
               f"{_repositories(sel)} (median, min, max over repeated runs; "
               f"data/orfeo/derived/{', '.join(b + '.csv.gz' for b in benches)})")
    return df.reset_index(drop=True), caption


RUN_PARAMS = {"run", "block"}  # which of several runs a row is: merged, counted in 'runs'
DROPPED_PARAMS = {"bw_MBps"}   # n / t of one run: recomputed from t_us by whoever needs it
CONFIG_KEY = ["dataset", "benchmark", "algorithm", "mapping", "transport", "machine", "mpi_library",
              "np", "size_bytes", "params"]


def _config_params(params: str) -> str:
    return ";".join(item for item in str(params).split(";")
                    if item and item.partition("=")[0] not in RUN_PARAMS | DROPPED_PARAMS)


def _join_sources(sources) -> str:
    """'repo@c:a', 'repo@c:b|c' -> 'repo@c:a|b|c' (the files of one dataset share a repository
    and commit); sources of several repositories are kept whole."""
    heads, paths = set(), set()
    for s in sources:
        head, _, tail = s.partition(":")
        heads.add(head)
        paths.update(tail.split("|"))
    if len(heads) == 1:
        return f"{heads.pop()}:{'|'.join(sorted(paths))}"
    return "|".join(sorted(set(sources)))


def per_configuration(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per dataset, configuration and size: t_us the median over the runs merged,
    t_min_us/t_max_us their min/max, reps summed, 'runs' counted, sources joined; sorted.
    Rows that differ only in run=/block= (or the file) are merged; bw_MBps (n / t) is dropped.
    Idempotent, so derived tables and raw rows go through it alike (figures pool students)."""
    df = rows.copy()
    if "dataset" not in df.columns:
        df["dataset"] = ""
    df["params"] = df["params"].map(_config_params)
    if "runs" not in df.columns:
        df["runs"] = 1
    for c in CONFIG_KEY:
        if df[c].dtype == object:
            df[c] = df[c].fillna("")
    g = df.groupby(CONFIG_KEY, sort=True, dropna=False)
    out = g.agg(t_us=("t_us", "median"), t_min_us=("t_min_us", "min"), t_max_us=("t_max_us", "max"),
                reps=("reps", "sum"), runs=("runs", "sum"), source=("source", _join_sources))
    out = out.reset_index()
    return out[CONFIG_KEY + ["t_us", "t_min_us", "t_max_us", "reps", "runs", "source"]]


def load(key_or_benchmark: str, machine: str | None = None, roles=("raw",),
         cache=None, raw: bool = False) -> tuple[pd.DataFrame, str]:
    """(tidy table, provenance caption) for a catalog key, a dataset or a benchmark name.

    By default from the derived tables shipped in data/orfeo/derived/ (always there, offline):
    one row per configuration and size, t_us the median over repeated runs, t_min_us/t_max_us
    their range, plus 'runs' and 'dataset' columns. raw=True reads the raw files instead
    (fetched with their hashes, from $COMMBOOK_ORFEO_MIRROR if set): one row per run.
    """
    sel = _select(key_or_benchmark, roles)
    if machine:
        sel = sel[sel.machine == machine]
    if not len(sel):
        raise DataUnavailable(f"'{key_or_benchmark}' is not a catalog key, dataset or benchmark "
                              f"with ORFEO data{f' on {machine}' if machine else ''}")
    if not raw:
        return _load_derived(sel, machine)
    paths = {k: raw_dataset(k, cache) for k in sel.key}
    if not all(paths.values()):
        missing = sum(1 for p in paths.values() if p is None)
        raise DataUnavailable(f"{missing} raw ORFEO file(s) of '{key_or_benchmark}' are not in the "
                              f"cache: run `commbook data fetch orfeo` (or set COMMBOOK_ORFEO_MIRROR)")
    df = _import_entries(tuple(sel.key), str(cache_dir(cache)))
    if machine:
        df = df[df.machine == machine].reset_index(drop=True)
    fixed = int((sel.label_problem != "").sum())
    caption = (f"ORFEO raw data: {len(sel)} file(s) from {_repositories(sel)}, "
               f"sha256-checked; {fixed} with known label problems (see data/orfeo/catalog.csv)")
    return df.copy(), caption


# ------------------------------------------------------------------- views for the data page
YEARS = {f: ("2021/22" if f in ("matteoscorcia", "francesc0rtu", "thomasverardo") else "2023/24")
         for f in FOLDERS}  # Foundations of HPC (PBS era) vs High Performance Computing (SLURM era)


def overview(cat: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per dataset: course year, node types, benchmark, files, role, label problems."""
    cat = catalog() if cat is None else cat
    g = cat.assign(folder=cat.key.str.split("/").str[0]).groupby("dataset", sort=True)
    out = g.agg(year=("folder", lambda s: YEARS[s.iloc[0]]),
                machine=("machine", lambda s: ", ".join(sorted(set(m.removeprefix("orfeo-") for m in s)))),
                benchmark=("benchmark", lambda s: ", ".join(sorted(set(s) - {""})) or "mixed"),
                files=("key", "size"), role=("role", "first"),
                kB=("size", lambda s: round(s.astype(int).sum() / 1000)),
                label_problems=("label_problem", lambda s: int((s != "").sum())))
    return out.reset_index()


def coverage(cat: pd.DataFrame | None = None) -> pd.DataFrame:
    """Files per benchmark and node type (imported raw measurements only)."""
    cat = catalog() if cat is None else cat
    raw = cat[(cat.role == "raw") & (cat.skip == "")]
    raw = raw.assign(benchmark=raw.benchmark.replace("", "bcast/allreduce"),
                     machine=raw.machine.str.removeprefix("orfeo-"))
    return pd.crosstab(raw.benchmark, raw.machine)


def known_problems(cat: pd.DataFrame | None = None) -> pd.DataFrame:
    """Each distinct label problem or exclusion with the datasets and number of files it concerns."""
    cat = catalog() if cat is None else cat
    rows = []
    for what, col in (("label problem", "label_problem"), ("not imported", "skip")):
        sub = cat[cat[col] != ""]
        for text, g in sub.groupby(col, sort=False):
            rows.append({"kind": what, "datasets": ", ".join(sorted(set(g.dataset))),
                         "files": len(g), "what": text})
    return pd.DataFrame(rows, columns=["kind", "datasets", "files", "what"])
