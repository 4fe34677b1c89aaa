"""`commbook predict jacobi`: the report's model P(L, N) = L^3 N / (T_s + T_c) of a Jacobi solver.

    commbook predict jacobi --L 1200 --np 12,24,48 --ts 15.24 --lambda-us 0.99 \\
        --bandwidth-MBps 24120 [--decomp 3 | --grid 4x3x2] [--periodic] [--scaling strong] \\
        [--report-arithmetic] [--json]

--bandwidth-MBps is B in T_c = c/B + k T_l: the bandwidth of one process's exchange. The report
took B = 2 x the ping-pong bandwidth ("full duplex"), e.g. 24120 MB/s for 12060. Weak scaling
(the report's formula): every process owns L^3 points. Strong scaling: one L^3 grid split over
the processes. --report-arithmetic adds the value the seed report tabulated for the same inputs
(see commbook.models.jacobi.report_expected_mlups)."""

from __future__ import annotations

import json

from ..models import jacobi as jm
from .common import CLIError, parse_np_list


def register(models):
    p = models.add_parser(
        "jacobi",
        help="Jacobi solver performance P(L,N) (the report's model, weak or strong)",
        description="Predict MLUP/s of a domain-decomposed 7-point Jacobi solver from T_s, λ and "
        "B. These are model values, not measurements.",
    )
    p.add_argument(
        "--L",
        type=int,
        required=True,
        help="grid points per dimension (per process with --scaling weak, of the whole grid with strong)",
    )
    p.add_argument(
        "--np",
        required=True,
        dest="np_list",
        metavar="N[,N...]",
        help="number(s) of processes, e.g. 24 or 1,4,12,24,48",
    )
    p.add_argument(
        "--ts", type=float, required=True, dest="T_s", help="T_s: seconds for one sweep over L^3 points on one process"
    )
    p.add_argument("--lambda-us", type=float, required=True, help="latency T_l in microseconds")
    p.add_argument(
        "--bandwidth-MBps",
        type=float,
        required=True,
        help="B in MB/s (1e6 B/s); the report used 2 x the ping-pong bandwidth",
    )
    p.add_argument(
        "--decomp",
        type=int,
        choices=[1, 2, 3],
        default=None,
        help="decompose 1, 2 or 3 dimensions (most balanced grid; default 3)",
    )
    p.add_argument("--grid", help="explicit process grid AxBxC (one --np only)")
    p.add_argument(
        "--periodic",
        action="store_true",
        help="count faces as the periodic course code did (k = 2 per split dimension)",
    )
    p.add_argument(
        "--scaling",
        choices=["weak", "strong"],
        default="weak",
        help="weak: L^3 per process (default, the report's formula); strong: L^3 in all",
    )
    p.add_argument(
        "--report-arithmetic",
        action="store_true",
        help="also give the value the seed report's arithmetic gives (weak scaling)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def predictions(args) -> list[dict]:
    nps = parse_np_list(args.np_list)
    if args.grid and args.decomp:
        raise CLIError("give either --grid AxBxC or --decomp N, not both")
    if args.grid and len(nps) != 1:
        raise CLIError("--grid fixes the number of processes: give one --np with it")
    rows = []
    for n in nps:
        try:
            decomposition = args.grid or (args.decomp or 3)
            model = jm.JacobiModel(
                args.L, n, args.T_s, args.bandwidth_MBps, args.lambda_us, decomposition, args.periodic
            )
            row = model.as_dict()
            if args.scaling == "strong":
                if any(p > args.L for p in model.grid):
                    raise ValueError(f"L = {args.L} is smaller than the process grid {row['grid']}")
                row["mlups"] = jm.strong_mlups(
                    args.L, model.grid, args.T_s, args.bandwidth_MBps, args.lambda_us, args.periodic
                )
                single = 1e-6 * float(args.L) ** 3 / args.T_s
                row["efficiency"] = row["mlups"] / (n * single)
                row["comm_bytes"] = 2 * jm.strong_halo_bytes(args.L, model.grid, args.periodic)
                t_sweep = 1e-6 * float(args.L) ** 3 / row["mlups"]
                t_c = row["comm_bytes"] / (args.bandwidth_MBps * 1e6) + row["k"] * args.lambda_us * 1e-6
                row["T_c_s"] = t_c if n > 1 else 0.0
                row["comm_share"] = row["T_c_s"] / t_sweep
            if args.report_arithmetic:
                k = jm.faces(model.grid, periodic=True)
                row["report_mlups"] = jm.report_expected_mlups(
                    args.L, n, args.T_s, k, args.bandwidth_MBps / 2, args.lambda_us
                )
        except ValueError as e:
            raise CLIError(str(e)) from None
        row["scaling"] = args.scaling
        rows.append(row)
    return rows


def run(args) -> int:
    rows = predictions(args)
    if args.json:
        print(json.dumps({"model": "jacobi P(L,N) = L^3 N / (T_s + c/B + k T_l)", "predictions": rows}, indent=2))
        return 0
    print(
        f"Jacobi model, {args.scaling} scaling, L = {args.L}, T_s = {args.T_s:g} s, "
        f"T_l = {args.lambda_us:g} µs, B = {args.bandwidth_MBps:g} MB/s"
    )
    print("(model values, not measurements)")
    head = (
        f"{'np':>5} {'grid':>9} {'k':>2} {'c_bytes':>12} {'T_c_s':>11} {'MLUP/s':>10} "
        f"{'efficiency':>10} {'comm_share':>10}"
    )
    if args.report_arithmetic:
        head += f" {'report_MLUP/s':>13}"
    print(head)
    for r in rows:
        line = (
            f"{r['N']:>5d} {r['grid']:>9} {r['k']:>2d} {r['comm_bytes']:>12.0f} "
            f"{r['T_c_s']:>11.4e} {r['mlups']:>10.1f} {r['efficiency']:>10.4f} "
            f"{r['comm_share']:>10.2e}"
        )
        if args.report_arithmetic:
            line += f" {r['report_mlups']:>13.1f}"
        print(line)
    return 0
