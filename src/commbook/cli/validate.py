"""`commbook validate PART`: out-of-sample validation of the models on the ORFEO data.

    commbook validate pingpong|collectives|jacobi|all [--write] [--out DIR]
    commbook validate summary                  (from the committed tables, no raw data needed)

PART runs the named splits of commbook.validate on the raw ORFEO files (fetched with their
hashes; set COMMBOOK_ORFEO_MIRROR or run `commbook data fetch orfeo` first) and prints the
summary; --write stores the result tables in data/validation/ (or --out DIR)."""

from __future__ import annotations

from .common import CLIError, LazyChoices, lazy_description


def _validate():
    from .. import validate  # numpy, pandas, scipy: only when the command runs

    return validate


def register(sub):
    p = sub.add_parser("validate", help="fit models on part of the ORFEO data and predict the rest")
    lazy_description(
        p,
        lambda: (
            "Out-of-sample validation: "
            + "; ".join(f"{part}: {', '.join(splits)}" for part, splits in _validate().SPLITS.items())
            + ". 'summary' reads the committed tables only."
        ),
    )
    p.add_argument(
        "part",
        metavar="PART",
        help="pingpong, collectives, jacobi, all or summary",
        choices=LazyChoices(lambda: sorted(_validate().SPLITS) + ["all", "summary"]),
    )
    p.add_argument(
        "--write", action="store_true", help="store the result tables (atomically) in data/validation/ or --out"
    )
    p.add_argument("--out", metavar="DIR", help="directory of the result tables (default data/validation)")
    p.set_defaults(func=main)


def _print_summary(df) -> None:
    import pandas as pd

    show = df.assign(
        median_error=[f"{v:.1%}" for v in df.median_error],
        share_within=[f"{v:.0%}" for v in df.share_within],
        goal=["" if pd.isna(v) else f"{v:.0%}" for v in df.goal],
    )
    print(show.to_string(index=False))


def main(args) -> int:
    validate = _validate()
    from ..orfeo import DataUnavailable

    if args.part == "summary":
        if args.write:
            raise CLIError("'summary' only reads the tables; --write needs a part to compute")
        _print_summary(validate.summary(args.out))
        return 0
    parts = tuple(validate.SPLITS) if args.part == "all" else (args.part,)
    try:
        tables = validate.run(parts)
    except DataUnavailable as e:
        raise CLIError(f"{e} (validation needs the raw ORFEO files)") from None
    for name, df in tables.items():
        if "source" in df.columns and df.empty:
            raise CLIError(f"{name}: no ORFEO rows found: are the raw files fetched?")
    if args.write:
        command = "commbook validate " + " ".join(str(a) for a in args.argv)
        command = command.replace("validate validate", "validate")
        for path in validate.write_tables(tables, args.out, command=command):
            print(f"wrote {path}")
        if set(tables) == set(validate.TABLE_FILES):
            _print_summary(validate.summary(args.out))
        return 0
    for name, df in tables.items():
        print(f"== {name}: {validate.DESCRIPTIONS[name]} ({len(df)} rows)")
    print("(run with --write to store the tables; `commbook validate summary` prints the totals)")
    return 0
