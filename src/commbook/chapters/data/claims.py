"""Claims of the ORFEO data pages (book/data.md, book/data_catalogue.md): the faults of the raw
files, as the catalog and the derived tables record them, and the data-gather exercise."""

from __future__ import annotations

import re

from ...claims import claim
from ...claims.sources import per_tables_dir, tables_dir

RULES = "data/orfeo/catalog_rules.toml"
DERIVED = "data/orfeo/derived/"


@per_tables_dir
def _load(dataset):
    from ... import orfeo

    return orfeo.load(dataset)[0]


@claim(
    "data-ring-as-ns",
    page="data_catalogue",
    unit="ns",
    source=DERIVED + " thomasverardo/ring: 2 processes on THIN, median over placements, read as ns",
)
def _():
    r = _load("thomasverardo/ring")
    return float(r[(r.np == 2) & (r.machine == "orfeo-thin")].t_us.median())


def _rule_text(dataset, field):
    text = (tables_dir() / "catalog_rules.toml").read_text(encoding="utf-8")
    block = text.split(f'dataset = "{dataset}"', 1)[1].split("[[rules]]", 1)[0]
    return re.search(rf'^{field} = "(.*)"$', block, re.M).group(1)


@claim(
    "data-faulty-latency",
    page="data_catalogue",
    unit="ms",
    source=RULES + ": the skip reason of mzampar/latency_2nodes",
)
def _():
    return float(re.search(r"about ([\d.]+) ms", _rule_text("mzampar/latency_2nodes", "skip")).group(1))


def _slow():
    a = _load("anankin12/latency")
    return a, a[a.t_us > 5000]


@claim("data-anankin-slow-rows", page="data_catalogue", unit="", source=DERIVED + " anankin12/latency: rows above 5 ms")
def _():
    return float(len(_slow()[1]))


@claim("data-anankin-rows", page="data_catalogue", unit="", source=DERIVED + " anankin12/latency")
def _():
    return float(len(_slow()[0]))


@claim(
    "data-anankin-slow-time",
    page="data_catalogue",
    unit="ms",
    source=DERIVED + " anankin12/latency: median of the rows above 5 ms",
)
def _():
    return float(_slow()[1].t_us.median()) / 1e3


@claim(
    "data-anankin-slow-from-core",
    page="data_catalogue",
    unit="",
    source=DERIVED + " anankin12/latency: first core_to of the slow rows",
)
def _():
    cores = _slow()[1].params.str.extract(r"core_to=(\d+)")[0].astype(int)
    return float(cores.min())


def _gather_exercise():
    import pandas as pd

    b, g, m = (_load(d) for d in ("barbaralol/barrier", "giuliofantuzzi/barrier", "marcobarrasso1/gather"))

    def core(df):
        return df[df.mapping == "core"]

    return pd.DataFrame(
        {
            "labelled gather": b.groupby("np").t_us.median(),
            "barrier (default)": core(g[g.algorithm == "default"]).groupby("np").t_us.median(),
            "gather (linear)": core(m[m.algorithm == "basic_linear"]).groupby("np").t_us.median(),
        }
    ).loc[[16, 32, 48]]


for _P in (16, 32, 48):
    claim(
        f"data-gather-labelled-{_P}",
        page="data",
        unit="us",
        source=DERIVED + " barbaralol/barrier (labelled gather), median",
    )(lambda P=_P: float(_gather_exercise().loc[P, "labelled gather"]))


@claim(
    "data-gather-real-max",
    page="data",
    unit="us",
    rel_tol=0.3,
    source=DERIVED + " marcobarrasso1/gather, linear, core: largest median at 16, 32, 48",
)
def _():
    return float(_gather_exercise()["gather (linear)"].max())
