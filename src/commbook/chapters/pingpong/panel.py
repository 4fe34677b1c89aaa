"""The ping-pong page's run panel: message sizes and placement of two ranks."""

from __future__ import annotations

from ...panel_specs import (
    MAX_SIZE,
    Control,
    PanelSpec,
    placement_control,
    repetitions_control,
    size_range,
)


def spec() -> PanelSpec:
    return PanelSpec(
        "pingpong",
        "pingpong",
        [
            placement_control(),
            Control("sizes", "message sizes (bytes, MIN:MAX or list)", "sizes", "0:1M", 0, MAX_SIZE),
            repetitions_control(),
        ],
        sweep="sizes",
        points=lambda v: v["sizes"],
        options=lambda v, s: {"sizes": f"{s}:{s}", "repetitions": v["repetitions"]},
        command_options=lambda v: {"np": 2, "sizes": size_range(v["sizes"]), "repetitions": v["repetitions"]},
    )
