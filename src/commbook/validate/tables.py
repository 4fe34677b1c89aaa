"""The validation's result tables: computed from the raw ORFEO files (`run`), written to
``data/validation/`` with their metadata (`write_tables`), read back for the book (`load_table`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import config
from ..data import atomic_write_text
from .collective_splits import collective_processes
from .jacobi_split import jacobi_model
from .pingpong_splits import pingpong_curves, pingpong_machines, pingpong_runs, pingpong_sizes

TABLES_DIR = config.data_dir() / "validation"
SPLITS = {
    "pingpong": ("sizes", "runs", "machines"),
    "collectives": ("processes",),
    "jacobi": ("model",),
}
TABLE_FILES = {
    "pingpong_sizes": "pingpong_sizes.csv",
    "pingpong_points": "pingpong_points.csv",
    "pingpong_runs": "pingpong_runs.csv",
    "pingpong_machines": "pingpong_machines.csv",
    "collectives": "collectives.csv",
    "collectives_points": "collectives_points.csv",
    "jacobi": "jacobi.csv",
}
DESCRIPTIONS = {
    "pingpong_sizes": "one row per ORFEO ping-pong curve: median |relative error| on the odd-indexed "
    "sizes of a fit on the even-indexed ones (err_*), per method",
    "pingpong_points": "every 2nd held-out point of pingpong_sizes (curve = its row there) and "
    "the predictive piecewise fit's prediction (interp_us: log-log interpolation)",
    "pingpong_runs": "run 1 of a repeated ping-pong measurement (predictive piecewise fit) "
    "predicts the other runs; diff_measured: how much the runs differ anyway",
    "pingpong_machines": "a THIN curve (predictive piecewise fit) predicts the GPU-node curve of "
    "the same configuration",
    "collectives": "per-algorithm collective models fitted on small P predict larger P: how "
    "often the model's choice is the fastest measured algorithm or within 10 %",
    "collectives_points": "a deterministic sample of the held-out collective points (every k-th, "
    "about 40 per dataset and mapping)",
    "jacobi": "the report's model P(L, N) against every ORFEO Jacobi run it covers",
}


def run(parts=("pingpong", "collectives", "jacobi")) -> dict[str, pd.DataFrame]:
    """Compute the result tables of the named parts (see SPLITS)."""
    unknown = set(parts) - set(SPLITS)
    if unknown:
        raise ValueError(f"unknown validation part(s) {sorted(unknown)}; known: {sorted(SPLITS)}")
    out = {}
    if "pingpong" in parts:
        curves = pingpong_curves()
        out["pingpong_sizes"], out["pingpong_points"] = pingpong_sizes(curves)
        out["pingpong_runs"] = pingpong_runs(curves)
        out["pingpong_machines"] = pingpong_machines(curves)
    if "collectives" in parts:
        out["collectives"], out["collectives_points"] = collective_processes()
    if "jacobi" in parts:
        out["jacobi"] = jacobi_model()
    return out


def _sources_note(name: str, df: pd.DataFrame) -> str:
    if name.startswith("collectives"):
        return (
            "dataset = ORFEO catalog dataset owner/repository: its raw files, commits and "
            "sha256 are the catalog rows data/orfeo/catalog.csv of that repository"
        )
    if name == "pingpong_points":
        return "curve = the row of pingpong_sizes.csv, which names the raw file as repository@commit:path"
    return "source columns name each raw file as repository@commit:path (data/orfeo/catalog.csv)"


def to_csv_text(name: str, df: pd.DataFrame, command: str) -> str:
    """The committed form: metadata lines, then CSV with 6 significant digits (deterministic)."""
    meta = [
        f"# what: {DESCRIPTIONS[name]}",
        f"# sources: {_sources_note(name, df)}",
        f"# regenerate: {command}",
        "# derived from the raw ORFEO files; not measurements of ours",
    ]
    body = df.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    return "\n".join(meta) + "\n" + body


def write_tables(tables: dict, directory=None, command: str = "commbook validate all --write") -> list[Path]:
    directory = Path(directory) if directory else TABLES_DIR
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, df in tables.items():
        path = directory / TABLE_FILES[name]
        atomic_write_text(path, to_csv_text(name, df, command))
        paths.append(path)
    return paths


def load_table(name: str, directory=None) -> pd.DataFrame:
    """A committed result table (no raw data needed)."""
    if name not in TABLE_FILES:
        raise ValueError(f"unknown validation table '{name}'; known: {sorted(TABLE_FILES)}")
    path = (Path(directory) if directory else TABLES_DIR) / TABLE_FILES[name]
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `commbook validate all --write`")
    try:
        return pd.read_csv(path, comment="#", keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:  # a split with no pairs in the data
        return pd.DataFrame()
