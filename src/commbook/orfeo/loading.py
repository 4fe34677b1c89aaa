"""``orfeo.load``: a catalog key, dataset or benchmark as a tidy table with its provenance caption."""

from __future__ import annotations

import functools

import pandas as pd

from .derived import derived_table
from .fetching import cache_dir, raw_dataset
from .raw_catalog import catalog, entry, import_entry
from .tables import DataUnavailable


def _select(key_or_benchmark: str, roles) -> pd.DataFrame:
    cat = catalog()
    usable = cat[cat.skip == ""]
    if key_or_benchmark in set(cat.key):
        return cat[cat.key == key_or_benchmark]
    if key_or_benchmark in set(cat.dataset):  # a dataset named explicitly: whatever its role
        return usable[usable.dataset == key_or_benchmark]
    from ..importers import canonical_benchmark

    bench = canonical_benchmark(key_or_benchmark)
    sel = usable[
        (usable.benchmark == bench) | (usable.dataset.str.contains(bench, regex=False) & (usable.benchmark == ""))
    ]
    return sel[sel.role.isin(roles)] if roles else sel


@functools.lru_cache(maxsize=32)
def _import_entries(keys: tuple, cache_key: str) -> pd.DataFrame:
    tables = []
    for key in keys:
        e = entry(key)
        tables.append(import_entry(e, raw_dataset(key)))
    return pd.concat(tables, ignore_index=True)


def _repositories(sel: pd.DataFrame) -> str:
    repos = sorted(set(sel.repository))
    return (
        f"{len(repos)} student repositor{'y' if len(repos) == 1 else 'ies'} "
        f"({', '.join(r.split('/')[0] for r in repos)})"
    )


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
        raise DataUnavailable(f"no derived ORFEO rows for {sorted(datasets)}{f' on {machine}' if machine else ''}")
    runs = int(df["runs"].max()) if "runs" in df else 0
    how = "one run per point" if runs == 1 else "median, min, max over repeated runs" if runs else "as derived"
    caption = (
        # "file(s)" stays: data/simulated/calibration.json records this caption, and its hash
        # is in every shipped simulated run
        f"ORFEO data: {len(df)} rows derived from {len(sel)} raw file(s) of "
        f"{_repositories(sel)} ({how}; data/orfeo/derived/{', '.join(b + '.csv.gz' for b in benches)})"
    )
    return df.reset_index(drop=True), caption


def load(
    key_or_benchmark: str, machine: str | None = None, roles=("raw",), cache=None, raw: bool = False
) -> tuple[pd.DataFrame, str]:
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
        raise DataUnavailable(
            f"'{key_or_benchmark}' is not a catalog key, dataset or benchmark "
            f"with ORFEO data{f' on {machine}' if machine else ''}"
        )
    if not raw:
        return _load_derived(sel, machine)
    paths = {k: raw_dataset(k, cache) for k in sel.key}
    if not all(paths.values()):
        missing = sum(1 for p in paths.values() if p is None)
        raise DataUnavailable(
            f"{missing} raw ORFEO file(s) of '{key_or_benchmark}' are not in the "
            f"cache: run `commbook data fetch orfeo` (or set COMMBOOK_ORFEO_MIRROR)"
        )
    df = _import_entries(tuple(sel.key), str(cache_dir(cache)))
    if machine:
        df = df[df.machine == machine].reset_index(drop=True)
    fixed = int((sel.label_problem != "").sum())
    caption = (
        f"ORFEO raw data: {len(sel)} file{'s' * (len(sel) != 1)} from {_repositories(sel)}, "
        f"sha256-checked; {fixed} with known label problems (see data/orfeo/catalog.csv)"
    )
    return df.copy(), caption
