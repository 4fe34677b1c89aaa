"""The ring page's run panel: process counts, message size and the exchange."""

from __future__ import annotations

from ...panel_specs import (
    Control,
    PanelSpec,
    placement_control,
    processes_list_control,
    repetitions_control,
    with_processes,
)


def _nonblocking(v: dict) -> int:
    return int(v["algorithm"] != "MPI_Sendrecv")


def spec() -> PanelSpec:
    return PanelSpec(
        "ring",
        "ring",
        [
            processes_list_control("2,3,4", 2),
            placement_control(),
            Control("size", "message size (bytes)", "bytes", "4", 4, 16 * 2**20),
            Control("algorithm", "exchange", "choice", "MPI_Sendrecv", choices=("MPI_Sendrecv", "MPI_Isend/MPI_Irecv")),
            repetitions_control(5),
        ],
        sweep="processes",
        points=lambda v: v["processes"],
        point_values=with_processes,
        options=lambda v, P: {
            "size": f"{v['size']}:{v['size']}",
            "repetitions": v["repetitions"],
            "nonblocking": _nonblocking(v),
            "iterations": 50,
        },
        command_options=lambda v: {
            "np": v["processes"][-1],
            "size": v["size"],
            "nonblocking": _nonblocking(v),
            "repetitions": v["repetitions"],
        },
        x="np",
        x_label="processes P",
        x_log=False,
    )
