"""`commbook import FILE...` (benchmark output -> tidy CSV) and `commbook data ...` (ORFEO data).

    commbook import osu_latency.txt IMB.out results/ --out tidy.csv [--keep-going]
    commbook data fetch orfeo [--mirror DIR_OR_URL] [--cache DIR]
    commbook data list
    commbook data catalog --mirror DIR          (maintainers: regenerate the catalog)
    commbook data derive [--mirror DIR] [--check] (maintainers: regenerate data/orfeo/derived/)

Files whose bytes match a catalogued ORFEO file are imported with the catalog's labels and
corrections; other files are read from what their text and name say, plus the options given."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .. import config
from .common import CLIError, LazyChoices, command_group

OVERRIDES = ["benchmark", "algorithm", "mapping", "machine", "transport", "mpi_library"]


def register(sub):
    p = sub.add_parser(
        "import",
        help="import IMB/OSU/student benchmark output into a tidy CSV",
        description="Read benchmark output files (directories are walked), detect their format "
        "(see --format) and write one tidy CSV.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="files or directories")
    p.add_argument("--out", metavar="TIDY.csv", help="write here (atomically); default: stdout")
    p.add_argument(
        "--format",
        choices=LazyChoices(lambda: sorted(_importers().FORMATS) + sorted(_importers().FORMAT_ALIASES)),
        metavar="FORMAT",
        help="skip detection and read every file as this format: %(choices)s",
    )
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="import what can be imported; one line per refused file, then a summary",
    )
    for name in OVERRIDES:
        p.add_argument(
            f"--{name.replace('_', '-')}",
            dest=name,
            metavar=name.upper(),
            help=f"set {name} for every row (overrides the file)",
        )
    p.add_argument("--np", type=int, help="number of processes when the file does not say")
    p.add_argument("--np-start", type=int, metavar="N", help="one-value-per-line files: np of the first value")
    p.add_argument("--np-step", type=int, default=None, metavar="K", help="... and the step between lines (default 1)")
    p.add_argument(
        "--size", type=int, dest="size_bytes", metavar="BYTES", help="message size when the file does not say"
    )
    p.add_argument(
        "--time-unit",
        choices=LazyChoices(lambda: sorted(_importers().TIME_FACTORS)),
        metavar="UNIT",
        help="unit of a time column whose name does not say: %(choices)s",
    )
    p.add_argument(
        "--no-catalog", action="store_true", help="do not use the ORFEO catalog's labels even for catalogued files"
    )
    p.set_defaults(func=run_import)

    ds = command_group(sub, "data", "ORFEO datasets: fetch with hashes, list, catalog", dest="data_command")
    f = ds.add_parser(
        "fetch",
        help="download the catalogued raw files and check their sha256",
        description="Download every file of data/orfeo/catalog.csv from its public "
        "repository at the pinned commit (or from a mirror) into a "
        "local cache, checking each sha256.",
    )
    f.add_argument("collection", choices=["orfeo"], help="which data (only 'orfeo')")
    _raw_files_options(
        f,
        "a directory or http(s) URL laid out like the ORFEO tree (folder per source); "
        "default $COMMBOOK_ORFEO_MIRROR, else raw.githubusercontent.com",
        "default $COMMBOOK_DATA_CACHE or ~/.cache/commbook/orfeo",
        mirror_metavar="DIR_OR_URL",
    )
    f.add_argument(
        "--dataset",
        action="append",
        default=[],
        metavar="NAME",
        help="only this dataset (repeatable; see `commbook data list`)",
    )
    f.set_defaults(func=run_fetch)
    ls = ds.add_parser("list", help="datasets in the catalog and the shipped summary tables")
    ls.add_argument("--cache", metavar="DIR", help="cache to report on")
    ls.set_defaults(func=run_list)
    c = ds.add_parser("catalog", help="regenerate data/orfeo/catalog.csv from a mirror (maintainers)")
    c.add_argument("--mirror", required=True, metavar="DIR", help="directory laid out like the ORFEO tree")
    c.add_argument("--out", metavar="CSV", help="default data/orfeo/catalog.csv")
    c.set_defaults(func=run_catalog)
    dv = ds.add_parser(
        "derive",
        help="regenerate data/orfeo/derived/ from the raw files (maintainers)",
        description="Import every usable catalogued raw file (sha256-checked) and "
        "write the per-configuration tables the book plots from.",
    )
    _raw_files_options(
        dv,
        "directory laid out like the ORFEO tree; default $COMMBOOK_ORFEO_MIRROR, "
        "else the fetch cache (`commbook data fetch orfeo` first)",
        "fetch cache to read when no mirror is given",
    )
    dv.add_argument("--out", metavar="DIR", help="default data/orfeo/derived/")
    dv.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if the tables in --out differ from the regenerated ones",
    )
    dv.set_defaults(func=run_derive)


def _raw_files_options(parser, mirror_help: str, cache_help: str, mirror_metavar: str = "DIR") -> None:
    """--mirror and --cache: where the raw ORFEO files come from (a mirror of the ORFEO tree, or
    the local cache that `data fetch` fills)."""
    parser.add_argument("--mirror", metavar=mirror_metavar, help=mirror_help)
    parser.add_argument("--cache", metavar="DIR", help=cache_help)


def _importers():
    from .. import importers  # pandas: imported when a command runs, not for `commbook --help`

    return importers


def _user_hints(args) -> dict:
    hints = {k: getattr(args, k) for k in OVERRIDES if getattr(args, k, None)}
    for k in ("np", "np_start", "np_step", "size_bytes", "time_unit"):
        if getattr(args, k, None) is not None:
            hints[k] = getattr(args, k)
    if hints.get("mapping") and hints["mapping"] not in ("core", "socket", "node", "self", "unknown"):
        raise CLIError(f"--mapping '{hints['mapping']}': use core, socket, node, self or unknown")
    for k in ("np", "np_start", "np_step", "size_bytes"):
        if k in hints and hints[k] < (0 if k == "size_bytes" else 1):
            raise CLIError(f"--{k.replace('_', '-')} {hints[k]} is out of range")
    return hints


def run_import(args) -> int:
    import pandas as pd

    from .. import importers, orfeo
    from ..data import normalise, write_measurements

    user = _user_hints(args)
    files = importers.iter_files(args.files)
    if not files:
        raise CLIError(f"no files under {' '.join(args.files)}")
    for f in args.files:
        if not Path(f).exists():
            raise CLIError(f"{f}: no such file or directory")
    tables, refused, t0 = [], 0, time.time()
    for path in files:
        hints = {}
        if not args.no_catalog and (e := orfeo.lookup(path)) is not None:
            hints = orfeo.hints_for(e)
        hints.update(user)
        try:
            tables.append(importers.import_file(path, fmt=args.format, hints=hints))
        except importers.Refused as err:
            if not args.keep_going:
                raise CLIError(f"{err} (use --keep-going to import the other files)") from None
            refused += 1
            print(f"refused: {err}", file=sys.stderr)
    table = normalise(pd.concat(tables, ignore_index=True)) if tables else None
    rows = 0 if table is None else len(table)
    summary = (
        f"imported {len(tables)} file{'s' * (len(tables) != 1)}, {rows} rows; "
        f"refused {refused} file{'s' * (refused != 1)} ({time.time() - t0:.1f} s)"
    )
    if table is None:
        print(summary, file=sys.stderr)
        return 1
    meta = {
        "what": "benchmark output imported into the commbook tidy schema",
        "command": "commbook import " + " ".join(args.files),
        "files": f"{len(tables)} imported, {refused} refused",
    }
    if args.out:
        write_measurements(args.out, table, meta)
        print(f"{summary}; wrote {args.out}", file=sys.stderr)
    else:
        for k, v in meta.items():
            sys.stdout.write(f"# {k}: {v}\n")
        table.to_csv(sys.stdout, index=False, lineterminator="\n")
        print(summary, file=sys.stderr)
    return 0


def run_fetch(args) -> int:
    from .. import orfeo

    cat = orfeo.catalog()
    keys = None
    if args.dataset:
        unknown = sorted(set(args.dataset) - set(cat.dataset))
        if unknown:
            raise CLIError(f"unknown dataset(s) {unknown}; see `commbook data list`")
        keys = list(cat[cat.dataset.isin(args.dataset)].key)
    mirror = args.mirror
    if mirror and not mirror.startswith(("http://", "https://")) and not Path(mirror).is_dir():
        raise CLIError(f"--mirror {mirror}: not a directory or an http(s) URL")
    where = mirror or config.get("COMMBOOK_ORFEO_MIRROR") or "raw.githubusercontent.com"
    t0 = time.time()
    paths, errors = orfeo.fetch(
        keys, mirror=mirror, cache=args.cache, on_error=lambda msg: print(f"error: {msg}", file=sys.stderr)
    )
    size = sum(p.stat().st_size for p in paths)
    failed = [e for e in errors if not e.startswith("stopped")]
    skipped = len(orfeo.catalog() if keys is None else keys) - len(paths) - len(failed)
    print(
        f"fetched {len(paths)} file(s), {size / 1e6:.1f} MB, from {where} into "
        f"{orfeo.cache_dir(args.cache)}; sha256 checked; {len(failed)} failed"
        f"{f', {skipped} not tried' if skipped else ''} ({time.time() - t0:.1f} s)"
    )
    return 1 if errors else 0


def run_list(args) -> int:
    import pandas as pd

    from .. import orfeo

    cat = orfeo.catalog()
    cache = orfeo.cache_dir(args.cache)
    cat["cached"] = [(cache / k).is_file() for k in cat.key]
    g = cat.groupby("dataset").agg(
        files=("key", "size"),
        cached=("cached", "sum"),
        role=("role", "first"),
        benchmark=("benchmark", "first"),
        machine=("machine", lambda s: ",".join(sorted(set(s)))),
        label_problems=("label_problem", lambda s: int((s != "").sum())),
    )
    with pd.option_context("display.width", 160, "display.max_rows", 500):
        print(g.to_string())
    print(f"\nsummary tables (data/orfeo/): {', '.join(orfeo.table_names())}")
    index = orfeo.derived_table("index.csv")
    print(
        f"derived tables ({orfeo.DERIVED_DIR}): {index.rows.sum()} rows from "
        f"{index.drop_duplicates('dataset').files.sum()} "
        f"raw files; `commbook data derive` rebuilds them"
    )
    print(f"cache: {cache} ({int(cat.cached.sum())} of {len(cat)} files)")
    return 0


def run_catalog(args) -> int:
    if not Path(args.mirror).is_dir():
        raise CLIError(f"--mirror {args.mirror}: not a directory")
    from .. import orfeo

    df = orfeo.build_catalog(args.mirror)
    out = orfeo.write_catalog(df, args.out or orfeo.CATALOG)
    print(f"wrote {out}: {len(df)} files, {df.dataset.nunique()} datasets, {int((df.skip != '').sum())} not imported")
    return 0


def run_derive(args) -> int:
    from .. import importers, orfeo
    from ..orfeo import rebuild

    source = args.mirror or config.orfeo_mirror() or str(orfeo.cache_dir(args.cache))
    if not Path(source).is_dir():
        raise CLIError(f"{source}: not a directory (give --mirror DIR, or fetch the raw files first)")
    t0 = time.time()
    try:
        files = rebuild.derive(source)
    except (rebuild.DeriveError, importers.Refused) as e:
        raise CLIError(str(e)) from None
    out = Path(args.out or orfeo.DERIVED_DIR)
    rows = sum(
        sum(not line.startswith("#") for line in text.splitlines()) - 1
        for name, text in files.items()
        if name != "index.csv"
    )
    if args.check:
        stale = [
            n for n, text in sorted(files.items()) if not (out / n).is_file() or rebuild.read_text(out / n) != text
        ]
        extra = sorted({p.name for p in out.glob("*.csv.gz")} - set(files))
        for n in stale + extra:
            print(f"differs: {out / n}", file=sys.stderr)
        print(
            f"checked {len(files)} derived table(s) in {out} against {source}: "
            f"{len(stale) + len(extra)} differ ({time.time() - t0:.1f} s)"
        )
        return 1 if stale or extra else 0
    paths = rebuild.write(files, out)
    size = sum(p.stat().st_size for p in paths)
    print(
        f"wrote {len(paths)} derived table(s), {rows} rows, {size / 1e6:.2f} MB, to {out} "
        f"from {source} ({time.time() - t0:.1f} s)"
    )
    return 0
