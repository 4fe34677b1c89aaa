"""One run panel per measuring chapter: which kernel, which controls, how values become options,
and how "your run" enters the chapter's explorer."""

from __future__ import annotations

from .. import collective_runs as collectives
from ..panel_specs import MAX_SIZE, Control, PanelInputError, PanelSpec, max_processes, placements, size_range

MATRIX_SHAPES = ("100x100x100", "120x100x81")  # shapes the matrix explorer also offers


def _placement() -> Control:
    return Control(
        "placement",
        "placement (mpiexec --map-by)",
        "choice",
        "core",
        choices=placements(),
        help="where the ranks sit: cores, sockets, nodes",
    )


def _repetitions(default: int = 3) -> Control:
    return Control("repetitions", "repetitions (timed runs per point)", "int", default, 1, 20)


def _processes_list(default: str, lo: int = 1) -> Control:
    return Control("processes", "processes (MPI ranks, list)", "ints", default, lo, max_processes())


def _with_processes(values: dict, P: int) -> dict:
    return {**values, "processes": P}


def pingpong() -> PanelSpec:
    return PanelSpec(
        "pingpong",
        "pingpong",
        [
            _placement(),
            Control("sizes", "message sizes (bytes, MIN:MAX or list)", "sizes", "0:1M", 0, MAX_SIZE),
            _repetitions(),
        ],
        sweep="sizes",
        points=lambda v: v["sizes"],
        options=lambda v, s: {"sizes": f"{s}:{s}", "repetitions": v["repetitions"]},
        command_options=lambda v: {"np": 2, "sizes": size_range(v["sizes"]), "repetitions": v["repetitions"]},
    )


def _nonblocking(v: dict) -> int:
    return int(v["algorithm"] != "MPI_Sendrecv")


def ring() -> PanelSpec:
    return PanelSpec(
        "ring",
        "ring",
        [
            _processes_list("2,3,4", 2),
            _placement(),
            Control("size", "message size (bytes)", "bytes", "4", 4, 16 * 2**20),
            Control("algorithm", "exchange", "choice", "MPI_Sendrecv", choices=("MPI_Sendrecv", "MPI_Isend/MPI_Irecv")),
            _repetitions(5),
        ],
        sweep="processes",
        points=lambda v: v["processes"],
        point_values=_with_processes,
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


def _matrix_grid(v: dict, grid: str) -> str:
    return "0x1x1" if grid == "auto" else grid


def matrix_add() -> PanelSpec:
    return PanelSpec(
        "matrix_add",
        "matrix-add",
        [
            Control("processes", "processes (MPI ranks)", "int", 2, 1, max_processes()),
            _placement(),
            Control("shape", "matrix (elements NXxNYxNZ)", "choice", MATRIX_SHAPES[1], choices=MATRIX_SHAPES),
            Control("grids", "process grids (AxBxC or auto, list)", "grids", "2x1x1,1x2x1,1x1x2"),
            _repetitions(),
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


def jacobi() -> PanelSpec:
    return PanelSpec(
        "jacobi",
        "jacobi",
        [
            _processes_list("1,2"),
            _placement(),
            Control("L", "grid points per dimension L (points)", "int", 64, 8, 256),
            Control("scaling", "scaling", "choice", "strong", choices=("strong", "weak")),
            Control("sweeps", "sweeps (timed repetitions)", "int", 10, 2, 200),
        ],
        sweep="processes",
        points=lambda v: v["processes"],
        point_values=_with_processes,
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


def collective() -> PanelSpec:
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
            _placement(),
            Control("sizes", "message sizes (bytes, MIN:MAX or list)", "sizes", "8:64K", 0, 16 * 2**20),
            _repetitions(),
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


SPECS = {"pingpong": pingpong, "ring": ring, "matrix_add": matrix_add, "jacobi": jacobi, "collectives": collective}


def spec(chapter: str) -> PanelSpec:
    try:
        return SPECS[chapter]()
    except KeyError:
        raise ValueError(f"no run panel for chapter '{chapter}'; chapters: {', '.join(SPECS)}") from None
