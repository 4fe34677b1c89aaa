"""Summaries of the catalog for the data page."""

from __future__ import annotations

import pandas as pd

from .raw_catalog import catalog, catalog_rules


def overview(cat: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per dataset: course year, node types, benchmark, files, role, label problems."""
    cat = catalog() if cat is None else cat
    g = cat.assign(folder=cat.key.str.split("/").str[0]).groupby("dataset", sort=True)
    folders = catalog_rules()[0]
    out = g.agg(
        year=("folder", lambda s: folders[s.iloc[0]]["year"]),
        machine=("machine", lambda s: ", ".join(sorted(set(m.removeprefix("orfeo-") for m in s)))),
        benchmark=("benchmark", lambda s: ", ".join(sorted(set(s) - {""})) or "mixed"),
        files=("key", "size"),
        role=("role", "first"),
        kB=("size", lambda s: round(s.astype(int).sum() / 1000)),
        label_problems=("label_problem", lambda s: int((s != "").sum())),
    )
    return out.reset_index()


def coverage(cat: pd.DataFrame | None = None) -> pd.DataFrame:
    """Files per benchmark and node type (imported raw measurements only)."""
    cat = catalog() if cat is None else cat
    raw = cat[(cat.role == "raw") & (cat.skip == "")]
    raw = raw.assign(
        benchmark=raw.benchmark.replace("", "bcast/allreduce"), machine=raw.machine.str.removeprefix("orfeo-")
    )
    return pd.crosstab(raw.benchmark, raw.machine)


def known_problems(cat: pd.DataFrame | None = None) -> pd.DataFrame:
    """Each distinct label problem or exclusion with the datasets and number of files it concerns."""
    cat = catalog() if cat is None else cat
    rows = []
    for what, col in (("label problem", "label_problem"), ("not imported", "skip")):
        sub = cat[cat[col] != ""]
        for text, g in sub.groupby(col, sort=False):
            rows.append({"kind": what, "datasets": ", ".join(sorted(set(g.dataset))), "files": len(g), "what": text})
    return pd.DataFrame(rows, columns=["kind", "datasets", "files", "what"])
