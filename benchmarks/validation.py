"""How good are the models out of sample? The full validation table, with its command.

Runs every split of commbook.validate on the raw ORFEO files (COMMBOOK_ORFEO_MIRROR or the
fetched cache), times each part, and writes the summary (one row per model, split and dataset),
the ping-pong curves the predictive fit still misses, and the collective datasets that could not
be scored, to <out>.txt. The committed result tables in data/validation/ are what
`commbook validate all --write` writes; this script does not touch them.

    COMMBOOK_ORFEO_MIRROR=../shared/orfeo python benchmarks/validation.py [--out benchmarks/results/validation]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from commbook import machine, validate
from commbook.data import atomic_write_text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="benchmarks/results/validation", help="output path without .txt")
    args = ap.parse_args(argv)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_colwidth", 70)
    lines = [
        "# out-of-sample validation of the commbook models on the ORFEO data",
        *machine.provenance(" ".join(["python"] + sys.argv)),
    ]
    tables = {}
    for part in validate.SPLITS:
        t0 = time.perf_counter()
        tables.update(validate.run((part,)))
        lines.append(f"# {part}: {time.perf_counter() - t0:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        validate.write_tables(tables, tmp, command="benchmarks/validation.py")
        s = validate.summary(tmp)
        show = s.assign(
            median_error=s.median_error.map("{:.1%}".format),
            share_within=s.share_within.map("{:.1%}".format),
            goal=s.goal.map(lambda g: "" if pd.isna(g) else f"{g:.0%}"),
        )
        lines += ["", "## summary (share_within: curves / choices / runs within the band)", show.to_string(index=False)]
        for name in ("pingpong", "collectives", "jacobi"):
            lines.append(f"# {validate.headline(name, tmp)}")
    pp = tables["pingpong_sizes"]
    bad = pp[pp.err_piecewise_predictive > validate.WITHIN]
    lines += [
        "",
        f"## ping-pong curves above 10 % with the predictive fit ({len(bad)} of {len(pp)})",
        bad.groupby(["machine", "mapping", "transport"]).size().rename("curves").to_string(),
    ]
    co = tables["collectives"]
    lines += [
        "",
        "## collective datasets not scored",
        co[co.status != "ok"][["op", "dataset", "machine", "mapping", "status"]].to_string(index=False),
    ]
    ja = tables["jacobi"]
    lines += [
        "",
        "## Jacobi runs outside 15 %",
        ja[~ja.within_15][["machine", "mapping", "np", "scaling", "grid", "measured_mlups", "model_mlups"]]
        .round(1)
        .to_string(index=False),
    ]
    out = Path(args.out).with_suffix(".txt")
    atomic_write_text(out, "\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
