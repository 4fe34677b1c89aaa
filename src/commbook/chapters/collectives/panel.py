"""The collectives library page's run panel: one collective, its algorithm and message sizes."""

from __future__ import annotations

from ... import collective_runs as collectives
from ...panel_specs import (
    Control,
    PanelInputError,
    PanelSpec,
    max_processes,
    placement_control,
    repetitions_control,
    size_range,
)


def spec() -> PanelSpec:
    algorithms = tuple(sorted({a for op in collectives.OPS for a in collectives.HAND_ALGORITHMS[op]}))
    return PanelSpec(
        "collectives",
        "bcast",
        [
            Control("operation", "operation", "choice", "bcast", choices=collectives.OPS),
            Control(
                "algorithm",
                "algorithm",
                "choice",
                "library",
                choices=("library",) + algorithms,
                help="library: the MPI library's own choice",
            ),
            Control("processes", "processes (MPI ranks)", "int", 2, 2, max_processes()),
            placement_control(),
            Control("sizes", "message sizes (bytes, MIN:MAX or list)", "sizes", "8:64K", 0, 16 * 2**20),
            repetitions_control(),
        ],
        sweep="sizes",
        points=lambda v: v["sizes"],
        options=lambda v, s: {
            "sizes": f"{s}:{s}",
            "algorithm": v["algorithm"],
            "repetitions": v["repetitions"],
            "iterations": 50,
        },
        command_options=lambda v: {
            "np": v["processes"],
            "algorithm": v["algorithm"],
            "sizes": size_range(v["sizes"]),
            "repetitions": v["repetitions"],
        },
        validate=_algorithm_of_operation,
    )


def _algorithm_of_operation(values: dict) -> None:
    op, alg = values["operation"], values["algorithm"]
    if alg != "library" and alg not in collectives.HAND_ALGORITHMS[op]:
        raise PanelInputError(
            f"algorithm: {op} has no algorithm '{alg}'; valid: library, {', '.join(collectives.HAND_ALGORITHMS[op])}"
        )
