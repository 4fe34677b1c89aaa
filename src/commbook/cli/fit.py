"""`commbook fit hockney FILE`: fit t = λ + n/b (or a piecewise version) to a tidy CSV.

The file is read with commbook.data.read_measurements; rows are narrowed to one benchmark
(--benchmark) and, when the file mixes machines, mappings, transports, ..., to one of each with
--select KEY=VALUE. The fit is robust least squares on relative error (commbook.fit)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .common import CLIError, command_group

# Columns that must hold one value for a fit to mean anything.
GROUP_COLUMNS = ["machine", "mpi_library", "mapping", "transport", "np", "algorithm"]
TIME_COLUMNS = ["t_us", "t_min_us", "t_max_us"]


def register(sub):
    models = command_group(sub, "fit", "fit a model to measurements (tidy CSV)", dest="model", metavar="MODEL")
    h = models.add_parser(
        "hockney",
        help="latency λ and bandwidth b of t = λ + n/b",
        description="Fit the Hockney model t = λ + n/b by robust least squares on relative "
        "error (λ ≥ 0, b > 0), with bootstrap confidence intervals.",
    )
    h.add_argument("file", metavar="FILE", help="tidy measurements CSV")
    h.add_argument("--benchmark", default="pingpong", help="rows of this benchmark (default %(default)s)")
    h.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keep rows whose column KEY equals VALUE (repeatable), e.g. mapping=core",
    )
    h.add_argument(
        "--time",
        default="t_us",
        choices=TIME_COLUMNS,
        help="which time column to fit (default %(default)s, the median)",
    )
    h.add_argument(
        "--piecewise",
        action="store_true",
        help="find size ranges with their own λ, b. Alone it DESCRIBES the sizes "
        "measured (breakpoints chosen by BIC: where does the protocol switch?)",
    )
    h.add_argument(
        "--predictive",
        action="store_true",
        help="with --piecewise: the setting for PREDICTING sizes that were not measured "
        "(commbook.fit.PREDICTIVE: AIC, up to 6 segments of 2 sizes, breakpoints "
        "where the lines cross); use it for `commbook predict hockney --model`",
    )
    h.add_argument(
        "--max-segments", type=int, default=None, help="most segments tried (default 3; 6 with --predictive)"
    )
    h.add_argument(
        "--bootstrap",
        type=int,
        default=500,
        metavar="N",
        help="bootstrap resamples for the confidence intervals (0: none; default 500)",
    )
    h.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap")
    h.add_argument("--json", action="store_true", help="print the fit as JSON")
    h.add_argument(
        "--out", metavar="FIT.json", help="write the fit as JSON (read by `commbook predict hockney --model`)"
    )
    h.set_defaults(func=run_hockney)


def parse_select(items: list[str]) -> dict[str, str]:
    from ..data import COLUMNS

    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CLIError(f"--select '{item}' is not KEY=VALUE")
        if key not in COLUMNS:
            raise CLIError(f"--select: no column '{key}'; columns are {', '.join(COLUMNS)}")
        out[key] = value.strip()
    return out


def select_rows(table, path: str, benchmark: str, select: dict[str, str]):
    """Rows of one benchmark and one configuration, or a CLIError saying how to narrow down."""
    from ..data import INT_COLUMNS

    rows = table[table["benchmark"] == benchmark]
    if rows.empty:
        have = sorted(set(table["benchmark"]))
        raise CLIError(
            f"{path}: no rows with benchmark '{benchmark}' (it has: "
            f"{', '.join(have) or 'no rows'}); choose one with --benchmark"
        )
    for key, value in select.items():
        col = rows[key]
        keep = col == (int(value) if key in INT_COLUMNS and value.lstrip("-").isdigit() else value)
        if not keep.any():
            have = sorted({str(v) for v in col})
            raise CLIError(f"{path}: no {benchmark} rows with {key}={value} (values there: {', '.join(have)})")
        rows = rows[keep]
    for key in GROUP_COLUMNS:
        values = sorted({str(v) for v in rows[key]})
        if len(values) > 1:
            raise CLIError(
                f"{path}: the {benchmark} rows mix {len(values)} values of {key} "
                f"({', '.join(values)}); fit one with --select {key}=VALUE"
            )
    return rows


def run_hockney(args) -> int:
    from .. import fit as fitting  # scipy: imported when a fit runs, not for `commbook --help`
    from ..data import read_measurements
    from ..model_files import save_model

    if args.predictive and not args.piecewise:
        raise CLIError("--predictive is a setting of the piecewise fit: give --piecewise --predictive")
    setting = dict(fitting.PREDICTIVE) if args.predictive else {}
    if args.max_segments is not None:
        setting["max_segments"] = args.max_segments
    setting.setdefault("max_segments", 3)
    if setting["max_segments"] < 1:
        raise CLIError(f"--max-segments must be at least 1, not {setting['max_segments']}")
    if args.bootstrap < 0:
        raise CLIError(f"--bootstrap must be 0 or more, not {args.bootstrap}")
    data = read_measurements(args.file)
    rows = select_rows(data.table, args.file, args.benchmark, parse_select(args.select))
    sizes, times = fitting.sizes_times(rows, args.time)
    try:
        if args.piecewise:
            result = fitting.fit_piecewise(sizes, times, **setting, n_boot=args.bootstrap, seed=args.seed)
        else:
            result = fitting.fit_hockney(sizes, times, n_boot=args.bootstrap, seed=args.seed)
    except ValueError as e:
        raise CLIError(f"{args.file}: cannot fit: {e}") from None
    record = result.to_dict()
    if args.piecewise:  # what the fit is for: `predict --model` says so
        record["setting"] = "predictive" if args.predictive else "descriptive"
    record["source"] = {
        "file": str(Path(args.file)),
        "benchmark": args.benchmark,
        "select": parse_select(args.select),
        "time_column": args.time,
        "rows": int(len(rows)),
        **{k: _one(rows[k]) for k in GROUP_COLUMNS},
    }
    if args.out:
        save_model(args.out, record)
    if args.json:
        print(json.dumps(record, indent=2))
    else:
        where = ", ".join(f"{k} {record['source'][k]}" for k in GROUP_COLUMNS if record["source"][k] not in ("", None))
        print(f"Hockney fit of {args.benchmark} in {args.file} ({where}; time column {args.time})")
        print("model: t(n) = λ + n/b, least squares on relative error, λ ≥ 0, b > 0")
        if args.piecewise:
            print(SETTING_TEXT[record["setting"]])
        print(result.summary())
    if args.out:
        print(f"commbook: wrote the fit to {args.out}", file=sys.stderr)
    return 0


SETTING_TEXT = {
    "descriptive": "piecewise, descriptive setting (BIC): describes the sizes measured; to predict "
    "other sizes fit with --piecewise --predictive",
    "predictive": "piecewise, predictive setting (commbook.fit.PREDICTIVE: AIC, breakpoints where "
    "the lines cross): for predicting sizes that were not measured",
}


def _one(col):
    v = col.iloc[0]
    return v.item() if hasattr(v, "item") else v
