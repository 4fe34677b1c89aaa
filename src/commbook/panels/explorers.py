"""Your runs in the chapters' explorers: each function returns what a run panel calls with
[(label, tidy table)] of the session's runs to redraw the chapter's explorer with them."""

from __future__ import annotations

import pandas as pd

from .. import data
from ..chapters.collectives import explorer as collectives_explorer
from ..chapters.jacobi import explorer as jacobi_explorer
from ..chapters.matrix_add import explorer as matrix_explorer


def _param(table: pd.DataFrame, key: str) -> str:
    return data.params_to_dict(table["params"].iloc[0]).get(key, "")


def matrix_measured(series) -> list:
    """[(label, tidy)] -> the matrix explorer's [(label, table with matrix, grid, np, t_us)]."""
    return [
        (
            label,
            t.assign(
                matrix=t["params"].map(lambda p: data.params_to_dict(p).get("shape", "")),
                grid=t["params"].map(lambda p: data.params_to_dict(p).get("grid", "")),
            ),
        )
        for label, t in series
    ]


def jacobi_measured(series) -> list:
    """[(label, tidy)] -> the jacobi explorer's [(label, N values, MLUP/s values)]."""
    return [
        (
            f"{label} (L = {_param(t, 'L')})",
            list(t["np"]),
            [float(data.params_to_dict(p)["mlups"]) for p in t["params"]],
        )
        for label, t in series
    ]


def collectives_measured(local: dict, series) -> dict:
    """The chapter's {operation: table} with your runs added, each algorithm named with its run."""
    out = dict(local or {})
    for label, t in series:
        op = str(t["benchmark"].iloc[0])
        mine = t.assign(algorithm=t["algorithm"].astype(str) + f", {label}")
        out[op] = pd.concat([out[op], mine], ignore_index=True) if op in out else mine
    return out


def matrix(measured, lambda_us, bandwidth_MBps, add_rate):
    """The matrix explorer over `measured` and your runs, at your last run's shape and P."""

    def draw(mine):
        last = mine[-1][1]
        return matrix_explorer.explorer(
            measured + matrix_measured(mine),
            lambda_us,
            bandwidth_MBps,
            add_rate,
            shape=_param(last, "shape"),
            P=int(last["np"].iloc[0]),
        )

    return draw


def jacobi(measured, latency_us, bandwidth_MBps, T_s):
    def draw(mine):
        return jacobi_explorer.explorer(measured + jacobi_measured(mine), latency_us, bandwidth_MBps, T_s)

    return draw


def collectives(local, lambda_us, bandwidth_MBps):
    """The collectives explorer with your runs, at your last run's operation and P."""

    def draw(mine):
        last = mine[-1][1]
        return collectives_explorer.explorer(
            collectives_measured(local, mine),
            lambda_us,
            bandwidth_MBps,
            P=int(last["np"].iloc[0]),
            op=str(last["benchmark"].iloc[0]),
        )

    return draw
