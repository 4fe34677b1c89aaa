"""Fitting the Hockney model t(n) = λ + n/b to measured times (scipy), one module per job:

* ``relative_error``  the residual every fit minimises (relative, robust loss, λ ≥ 0, b > 0);
* ``line``            one Hockney line (`fit_hockney`), plain least squares (`ols_hockney`),
  link classes from a broadcast table (`calibrate_link_classes`);
* ``bootstrap``       percentile confidence intervals by refitting resampled data;
* ``piecewise``       segments found from the data, BIC to describe, `PREDICTIVE` (AIC) to predict.

The names callers use are importable from ``commbook.fit`` itself.
"""

from .bootstrap import BootstrapCI, bootstrap_ci
from .line import HockneyFit, LinearFit, calibrate_link_classes, fit_hockney, ols_hockney, sizes_times
from .piecewise import CRITERIA, PREDICTIVE, PiecewiseFit, aic, bic, fit_piecewise
from .relative_error import (
    DEFAULT_F_SCALE,
    DEFAULT_LOSS,
    LOSSES,
    MAX_BANDWIDTH_MBPS,
    MAX_BOOT,
    MAX_PIECEWISE_SIZES,
    check_data,
    residuals,
)

__all__ = [
    "BootstrapCI",
    "CRITERIA",
    "DEFAULT_F_SCALE",
    "DEFAULT_LOSS",
    "HockneyFit",
    "LOSSES",
    "LinearFit",
    "MAX_BANDWIDTH_MBPS",
    "MAX_BOOT",
    "MAX_PIECEWISE_SIZES",
    "PREDICTIVE",
    "PiecewiseFit",
    "aic",
    "bic",
    "bootstrap_ci",
    "calibrate_link_classes",
    "check_data",
    "fit_hockney",
    "fit_piecewise",
    "ols_hockney",
    "residuals",
    "sizes_times",
]
