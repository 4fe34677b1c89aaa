"""Jacobi: the report's model P(L, N) against every ORFEO Jacobi run it covers (nothing fitted)."""

from __future__ import annotations

import pandas as pd

from .criteria import JACOBI_WITHIN


def jacobi_model() -> pd.DataFrame:
    """Every ORFEO Jacobi run the report's model covers, with model/measured."""
    from .. import orfeo
    from ..models.jacobi import orfeo_comparison

    runs, _ = orfeo.load("jacobi", raw=True)
    df = orfeo_comparison(runs, orfeo.summary_table("jacobi_seed"))
    df["within_15"] = (df.model_over_measured - 1).abs() <= JACOBI_WITHIN
    return df
