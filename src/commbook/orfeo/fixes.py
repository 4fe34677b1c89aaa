"""Corrections of known wrong labels in raw files, named by a catalog row's ``fix=`` hint."""
from __future__ import annotations

import pandas as pd


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
    from ..importers import COLL_TUNED

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
