"""One run panel per measuring chapter: which kernel, which controls, how values become options."""
from __future__ import annotations

from .. import collectives
from .specs import (MAX_SIZE, Control, PanelInputError, PanelSpec, max_processes, placements,
                    size_range)


def _placement() -> Control:
    return Control("placement", "placement (mpiexec --map-by)", "choice", "core",
                   choices=placements(), help="where the ranks sit: cores, sockets, nodes")


def _repetitions(default: int = 3) -> Control:
    return Control("repetitions", "repetitions (timed runs per point)", "int", default, 1, 20)


def pingpong() -> PanelSpec:
    return PanelSpec(
        "pingpong", "pingpong",
        [_placement(),
         Control("sizes", "message sizes (bytes, MIN:MAX or list)", "sizes", "0:1M", 0, MAX_SIZE),
         _repetitions()],
        sweep="sizes", points=lambda v: v["sizes"],
        options=lambda v, s: {"sizes": f"{s}:{s}", "repetitions": v["repetitions"]},
        command_options=lambda v: {"np": 2, "sizes": size_range(v["sizes"]),
                                   "repetitions": v["repetitions"]})


def ring() -> PanelSpec:
    return PanelSpec(
        "ring", "ring",
        [Control("processes", "processes (MPI ranks)", "int", 4, 2, max_processes()),
         _placement(),
         Control("sizes", "message sizes (bytes, MIN:MAX or list)", "sizes", "4:64K", 4, 16 * 2**20),
         Control("algorithm", "exchange", "choice", "MPI_Sendrecv",
                 choices=("MPI_Sendrecv", "MPI_Isend/MPI_Irecv")),
         _repetitions(5)],
        sweep="sizes", points=lambda v: v["sizes"],
        options=lambda v, s: {"size": f"{s}:{s}", "repetitions": v["repetitions"],
                              "nonblocking": int(v["algorithm"] != "MPI_Sendrecv")},
        command_options=lambda v: {"np": v["processes"], "size": size_range(v["sizes"]),
                                   "nonblocking": int(v["algorithm"] != "MPI_Sendrecv"),
                                   "repetitions": v["repetitions"]})


def matrix_add() -> PanelSpec:
    return PanelSpec(
        "matrix_add", "matrix-add",
        [Control("processes", "processes (MPI ranks)", "int", 2, 1, max_processes()),
         _placement(),
         Control("shapes", "matrix extent N of N x N x N (elements, list)", "ints", "50,100", 4, 400),
         Control("grid", "process grid (AxBxC or auto)", "text", "auto"),
         _repetitions()],
        sweep="shapes", points=lambda v: v["shapes"],
        options=lambda v, n: {"shape": f"{n}x{n}x{n}", "repetitions": v["repetitions"],
                              "grid": "0x1x1" if v["grid"] == "auto" else v["grid"]},
        command_options=lambda v: {"np": v["processes"], "shape": "x".join([str(v["shapes"][-1])] * 3),
                                   "grid": "0x1x1" if v["grid"] == "auto" else v["grid"],
                                   "repetitions": v["repetitions"]},
        x="size_bytes", x_label="bytes per matrix (N³ × 8)")


def jacobi() -> PanelSpec:
    return PanelSpec(
        "jacobi", "jacobi",
        [Control("processes", "processes (MPI ranks)", "int", 2, 1, max_processes()),
         _placement(),
         Control("Ls", "grid points per dimension L (points, list)", "ints", "32,48,64", 8, 256),
         Control("sweeps", "sweeps (timed repetitions)", "int", 10, 2, 200),
         Control("grid", "process grid (AxBxC or auto)", "text", "auto")],
        sweep="Ls", points=lambda v: v["Ls"],
        options=lambda v, L: {"L": L, "sweeps": v["sweeps"], "grid": v["grid"]},
        command_options=lambda v: {"np": v["processes"], "L": v["Ls"][-1], "sweeps": v["sweeps"],
                                   "grid": v["grid"]},
        x="L", x_label="grid points per dimension L")


def collective() -> PanelSpec:
    algorithms = tuple(sorted({a for op in collectives.OPS for a in collectives.HAND_ALGORITHMS[op]}))
    return PanelSpec(
        "collectives", "bcast",
        [Control("operation", "operation", "choice", "bcast", choices=collectives.OPS),
         Control("algorithm", "algorithm", "choice", "library", choices=("library",) + algorithms,
                 help="library: the MPI library's own choice"),
         Control("processes", "processes (MPI ranks)", "int", 2, 2, max_processes()),
         _placement(),
         Control("sizes", "message sizes (bytes, MIN:MAX or list)", "sizes", "8:64K", 0, 16 * 2**20),
         _repetitions()],
        sweep="sizes", points=lambda v: v["sizes"],
        options=lambda v, s: {"sizes": f"{s}:{s}", "algorithm": v["algorithm"],
                              "repetitions": v["repetitions"], "iterations": 50},
        command_options=lambda v: {"np": v["processes"], "algorithm": v["algorithm"],
                                   "sizes": size_range(v["sizes"]), "repetitions": v["repetitions"]},
        validate=_algorithm_of_operation)


def _algorithm_of_operation(values: dict) -> None:
    op, alg = values["operation"], values["algorithm"]
    if alg != "library" and alg not in collectives.HAND_ALGORITHMS[op]:
        raise PanelInputError(f"algorithm: {op} has no algorithm '{alg}'; valid: library, "
                              f"{', '.join(collectives.HAND_ALGORITHMS[op])}")


SPECS = {"pingpong": pingpong, "ring": ring, "matrix_add": matrix_add, "jacobi": jacobi,
         "collectives": collective}


def spec(chapter: str) -> PanelSpec:
    try:
        return SPECS[chapter]()
    except KeyError:
        raise ValueError(f"no run panel for chapter '{chapter}'; chapters: {', '.join(SPECS)}") from None
