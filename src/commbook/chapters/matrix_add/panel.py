"""The matrix-add page's run panel: process grids of one matrix."""

from __future__ import annotations

from ...panel_specs import (
    Control,
    PanelSpec,
    max_processes,
    placement_control,
    repetitions_control,
)

MATRIX_SHAPES = ("100x100x100", "120x100x81")  # shapes the matrix explorer also offers


def _matrix_grid(v: dict, grid: str) -> str:
    return "0x1x1" if grid == "auto" else grid


def spec() -> PanelSpec:
    return PanelSpec(
        "matrix_add",
        "matrix-add",
        [
            Control("processes", "processes (MPI ranks)", "int", 2, 1, max_processes()),
            placement_control(),
            Control("shape", "matrix (elements NXxNYxNZ)", "choice", MATRIX_SHAPES[1], choices=MATRIX_SHAPES),
            Control("grids", "process grids (AxBxC or auto, list)", "grids", "2x1x1,1x2x1,1x1x2"),
            repetitions_control(),
        ],
        sweep="grids",
        points=lambda v: v["grids"],
        options=lambda v, g: {"shape": v["shape"], "repetitions": v["repetitions"], "grid": _matrix_grid(v, g)},
        command_options=lambda v: {
            "np": v["processes"],
            "shape": v["shape"],
            "grid": _matrix_grid(v, v["grids"][0]),
            "repetitions": v["repetitions"],
        },
        x="grid",
        x_label="process grid",
        x_log=False,
    )
