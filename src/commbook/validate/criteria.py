"""What "the model predicts well" means in the validation: the acceptance bands and the error."""

from __future__ import annotations

import numpy as np

WITHIN = 0.10  # "within 10 %": the ping-pong and collective criterion
JACOBI_WITHIN = 0.15


def rel_error(pred, t) -> np.ndarray:
    """Relative error of predictions against measured times (positive: the model is slower)."""
    return np.asarray(pred, float) / np.asarray(t, float) - 1.0
