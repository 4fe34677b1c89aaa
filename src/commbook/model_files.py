"""Hockney model files: a model or a fit result as JSON (``commbook fit --out``, ``commbook predict
--model``), read with one clear error naming the file, written atomically."""

from __future__ import annotations

import json
from pathlib import Path

from .data import DataFormatError, atomic_write_text
from .models.hockney import Hockney, PiecewiseHockney, model_from_json


def load_model(path) -> Hockney | PiecewiseHockney:
    """Read a model or fit file; any problem raises DataFormatError naming the file (and line)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFormatError(path, 0, "no such file") from None
    except (UnicodeDecodeError, IsADirectoryError) as e:
        raise DataFormatError(path, 0, f"cannot read a model from it ({e})") from None
    try:
        return model_from_json(text)
    except json.JSONDecodeError as e:
        raise DataFormatError(path, e.lineno, f"not valid JSON: {e.msg} (column {e.colno})") from None
    except ValueError as e:
        raise DataFormatError(path, 0, f"not a Hockney model: {e}") from None


def save_model(path, obj) -> Path:
    """Write a model, a fit result (anything with to_dict) or a dict as JSON, atomically."""
    d = obj if isinstance(obj, dict) else obj.to_dict()
    atomic_write_text(path, json.dumps(d, indent=2) + "\n")
    return Path(path)


def fit_setting(path) -> str | None:
    """What a piecewise fit file was fitted for: "descriptive", "predictive", or None."""
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return d.get("setting") if isinstance(d, dict) else None
