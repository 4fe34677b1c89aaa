"""The Jacobi page's run panel: process counts, grid size and strong or weak scaling."""

from __future__ import annotations

from ...panel_specs import (
    Control,
    PanelSpec,
    placement_control,
    processes_list_control,
    with_processes,
)


def spec() -> PanelSpec:
    return PanelSpec(
        "jacobi",
        "jacobi",
        [
            processes_list_control("1,2"),
            placement_control(),
            Control("L", "grid edge L (points)", "int", 64, 8, 256),
            Control("scaling", "scaling", "choice", "strong", choices=("strong", "weak")),
            Control("sweeps", "sweeps (timed repetitions)", "int", 10, 2, 200),
        ],
        sweep="processes",
        points=lambda v: v["processes"],
        point_values=with_processes,
        options=lambda v, P: {"L": v["L"], "sweeps": v["sweeps"], "weak": int(v["scaling"] == "weak")},
        command_options=lambda v: {
            "np": v["processes"][-1],
            "L": v["L"],
            "sweeps": v["sweeps"],
            "weak": int(v["scaling"] == "weak"),
        },
        x="np",
        x_label="processes N",
        x_log=False,
        y="mlups",
        y_label="MLUP/s",
    )
