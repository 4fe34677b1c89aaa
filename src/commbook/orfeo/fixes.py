"""Corrections of known wrong labels in raw files: a ``[fixes.NAME]`` table of the catalog rules
(``data/orfeo/catalog_rules.toml``, whose header says what each key does) becomes a function
from the imported rows to the corrected rows; a catalog row's ``fix=NAME`` hint names it."""

from __future__ import annotations

import re

import pandas as pd

KEYS = {"where", "operation", "algorithm_ids", "set", "coll_tuned_id", "rename_param", "note", "pair_mapping"}


def _add_param(df: pd.DataFrame, mask, text: str) -> pd.DataFrame:
    cur = df.loc[mask, "params"]
    df.loc[mask, "params"] = cur.where(cur == "", cur + ";") + text
    return df


def _set_coll_tuned_id(df, mask, ident) -> pd.DataFrame:
    df.loc[mask, "params"] = df.loc[mask, "params"].str.replace(
        r"coll_tuned_id=\d+", f"coll_tuned_id={ident}", regex=True
    )
    return df


def _relabel(df, operation: str, labels: dict) -> pd.DataFrame:
    """Each file label as the coll_tuned algorithm of its number; the label kept in params."""
    from ..importers import COLL_TUNED

    for label, ident in labels.items():
        mask = df.algorithm == label
        if mask.any():
            df.loc[mask, "algorithm"] = COLL_TUNED[operation][ident]
            df = _set_coll_tuned_id(df, mask, ident)
        if "coll_tuned_id" not in "".join(df.loc[mask, "params"].head(1)):
            df = _add_param(df, mask, f"coll_tuned_id={ident}")
        df = _add_param(df, mask, f"file_label={label}")
    return df


def make_fix(spec: dict):
    """The function of one [fixes.NAME] table; ValueError naming an unknown or malformed key."""
    if unknown := sorted(set(spec) - KEYS):
        raise ValueError(f"unknown key(s) {unknown}; known: {sorted(KEYS)}")
    if "algorithm_ids" in spec and not isinstance(spec.get("operation"), str):
        raise ValueError("algorithm_ids needs the operation whose coll_tuned numbers they are")
    if "rename_param" in spec and len(spec["rename_param"]) != 2:
        raise ValueError("rename_param is [old, new]")
    pair = spec.get("pair_mapping")
    if pair is not None and set(pair) != {"param", "cores_per_socket"}:
        raise ValueError("pair_mapping is {param = NAME, cores_per_socket = N}")

    def fix(df: pd.DataFrame) -> pd.DataFrame:
        mask = pd.Series(True, index=df.index)
        for column, value in spec.get("where", {}).items():
            mask &= df[column] == value
        if "algorithm_ids" in spec:
            df = _relabel(df, spec["operation"], spec["algorithm_ids"])
        for column, value in spec.get("set", {}).items():
            df.loc[mask, column] = value
        if "coll_tuned_id" in spec:
            df = _set_coll_tuned_id(df, mask, spec["coll_tuned_id"])
        if "rename_param" in spec:
            old, new = spec["rename_param"]
            df.loc[mask, "params"] = df.loc[mask, "params"].str.replace(
                re.escape(old) + r"=(\d+)", new + r"=\1", regex=True
            )
        if "note" in spec:
            df = _add_param(df, mask, spec["note"])
        if pair is not None:
            other = df.params.str.extract(rf"{re.escape(pair['param'])}=(\d+)")[0].astype(float)
            df.loc[other < pair["cores_per_socket"], "mapping"] = "core"
            df.loc[other >= pair["cores_per_socket"], "mapping"] = "socket"
        return df

    return fix
