"""`commbook simulate KERNEL --platform P --nodes N --np P --map-by core|socket|node [options]`:
the book's kernel on a simulated cluster (SimGrid SMPI); `commbook simulate calibrate` rebuilds
the calibration from ORFEO's ping-pong; `commbook simulate reference` writes the shipped runs
used where SMPI is absent."""

from __future__ import annotations

import shlex
import sys

from .. import kernels, registry
from .common import CLIError, add_kernel_options, command_group, parse_np_list

PLATFORMS = ("orfeo-thin", "orfeo-fat", "orfeo-epyc", "torus", "fat-tree", "dragonfly")  # simulate.platforms'
# what `commbook simulate reference` ships: (kernel, platform, nodes, map-by, nps, options)
REFERENCE_RUNS = [
    ("ring", "orfeo-thin", 2, "core", list(range(2, 49)), {"iterations": 10, "repetitions": 1}),
    ("ring", "orfeo-thin", 2, "node", list(range(2, 49)), {"iterations": 10, "repetitions": 1}),
]


# A simulation is deterministic: one repetition says all there is, and a few rings amortise the
# timer; the measured defaults (200 rings x 10 repetitions) would cost minutes here for nothing.
SIMULATED_DEFAULTS = {"*": {"repetitions": "1"}, "ring": {"iterations": "10"}}


def _default(kernel: str, option: str) -> str | None:
    return {**SIMULATED_DEFAULTS["*"], **SIMULATED_DEFAULTS.get(kernel, {})}.get(option)


def register(sub):
    words = command_group(
        sub,
        "simulate",
        "run a kernel on a simulated cluster (SimGrid SMPI), calibrated on ORFEO",
        dest="kernel",
        metavar="KERNEL",
    )
    c = words.add_parser(
        "calibrate", help="fit SMPI's network parameters to ORFEO's ping-pong (data/simulated/calibration.json)"
    )
    c.add_argument("--out", default=None, help="file to write (default: the shipped calibration)")
    c.set_defaults(func=run_calibrate)
    v = words.add_parser(
        "validate", help="simulated ring and collectives against ORFEO's measured ones (data/validation/)"
    )
    v.add_argument("--out", default=None, help="file to write (default: the shipped table; with --what all, ignored)")
    v.add_argument(
        "--what",
        choices=("ring", "collectives", "jacobi", "all"),
        default="all",
        help="the ring (data/validation/simulated_ring.csv), the collectives per Open MPI algorithm "
        "(data/validation/simulated_collectives.csv), ORFEO's THIN Jacobi runs "
        "(data/validation/simulated_jacobi.csv), or all three (default %(default)s)",
    )
    v.set_defaults(func=run_validate)
    r = words.add_parser("reference", help="write the shipped simulations of data/reference/simulated/")
    r.add_argument(
        "--kernel",
        default=None,
        help="only this kernel's shipped runs: ring, jacobi3d, allreduce (the topology page's and the "
        "collectives page's at P = 48), bcast, gather (at P = 48); default: all",
    )
    r.set_defaults(func=run_reference)
    for spec in registry.KERNELS.values():
        b = words.add_parser(spec.name, help=f"simulated: {spec.help}", description=spec.help)
        b.add_argument("--platform", default="orfeo-thin", help=f"one of {', '.join(PLATFORMS)} (default %(default)s)")
        b.add_argument("--nodes", type=int, default=2, help="nodes of the platform (default %(default)s)")
        b.add_argument(
            "--np",
            default=None,
            metavar="N[,N...]|MIN:MAX",
            help="MPI processes: one count, a list, or every count from MIN to MAX, one simulation each "
            "(default: every core)",
        )
        b.add_argument(
            "--map-by", default="core", help="core, socket or node, as mpiexec's --map-by (default %(default)s)"
        )
        b.add_argument("--transport", default=None, help="calibration to use: ucx (InfiniBand, default) or ob1-tcp")
        b.add_argument("--timeout", type=float, default=300.0, help="kill the simulation after this many seconds")
        b.add_argument("--out", help="tidy CSV to write (labelled simulated)")
        add_kernel_options(
            b, spec, default=lambda opt, name=spec.name: _default(name, opt.kernel_name), label="simulated"
        )
        b.set_defaults(func=run, spec=spec)


def run(args) -> int:
    import pandas as pd

    from ..simulate import platforms, runner

    spec: registry.KernelSpec = args.spec
    results = []
    try:
        plat = platforms.platform(args.platform, args.nodes, args.transport)
        nps = parse_np_list(args.np) if args.np is not None else [plat.cores]
        for np in nps:
            plat.hostfile(np, args.map_by)  # refuse bad placements before building anything
        if not runner.status().ok:
            raise CLIError(runner.status().line())
        options = {name[2:]: v for name, v in vars(args).items() if name.startswith("k_") and v is not None}
        for np in nps:
            print(f"commbook: simulating {spec.name} on {np} ranks of {plat.label()} ...", file=sys.stderr, flush=True)
            results.append(runner.run(spec.source, plat, np, args.map_by, options, args.timeout))
    except platforms.PlatformError as e:
        raise CLIError(str(e)) from None
    except kernels.CompileError as e:
        lines = str(e).splitlines()
        first = next((l for l in lines[1:] if "error" in l), lines[-1] if lines else "")
        raise CLIError(f"{lines[0] if lines else e} {first.strip()}") from None
    except kernels.ValidationFailed as e:
        said = e.output.result if e.output and e.output.result else f"VALIDATION FAILED: {e}"
        print(f"commbook: {spec.name}: {said}", file=sys.stderr)
        return 3
    result = results[-1]
    print(
        f"# simulated: {result.library} on {plat.description}, map-by {args.map_by}, {plat.transport} calibration {result.calibration}"
    )
    table = pd.concat([r.output.table for r in results], ignore_index=True)
    print(table.to_string(index=False))
    if spec.summary and len(results) == 1:  # a sweep's table says it once per row already
        print(spec.summary(result.output))
    if len(results) == 1:
        print(f"# result: {result.output.result} (simulated{', cached' if result.cached else ''})")
    else:
        cached = sum(r.cached for r in results)
        print(f"# result: {len(results)} runs, each {result.output.result} (simulated, {cached} from the cache)")
    if args.out:
        from ..data import write_measurements

        meta = {
            "machine": result.machine,
            "mpi_library": result.library,
            "calibration": result.calibration,
            "command": "commbook " + " ".join(shlex.quote(a) for a in args.argv),
        }
        write_measurements(args.out, pd.concat([r.tidy() for r in results], ignore_index=True), meta)
        print(f"commbook: wrote {args.out}", file=sys.stderr)
    return 0


def run_calibrate(args) -> int:
    from ..simulate import calibration

    path = calibration.write(args.out)
    content = calibration.load(path)
    for name, t in content["transports"].items():
        e = t["error_on_pingpong"]["all"]
        print(f"{name}: median error {e['median_pct']} % on {e['points']} ping-pong points, eager {t['eager_bytes']} B")
    print(f"commbook: wrote {path}", file=sys.stderr)
    return 0


def reference_runs() -> list:
    """REFERENCE_RUNS, the Jacobi strong scaling on 1, 2, 4, 8 THIN nodes (its compute rate is
    the calibration's: one THIN process's measured sweep, read from the data when asked), and the
    topology page's recursive-doubling allreduce on P single-core nodes (P = 1,024: about 80 s)."""
    from ..chapters.topology import simulated as topology_page
    from ..simulate import cluster

    return (
        REFERENCE_RUNS
        + [cluster.jacobi_strong_scaling()]
        + [
            ("allreduce", net, P, "core", [P], topology_page.OPTIONS)
            for net in topology_page.NETWORKS
            for P in topology_page.SIMULATED_NP
        ]
    )


def run_reference(args) -> int:
    import time

    from ..chapters.collectives import simulated as collectives_page
    from ..chapters.collectives import simulated_trees
    from ..simulate import cluster, runner

    if not runner.status().ok:
        raise CLIError(runner.status().line())
    command = f"commbook simulate reference{'' if args.kernel is None else ' --kernel ' + args.kernel}"
    for kernel, plat, nodes, map_by, nps, options in reference_runs():
        if args.kernel not in (None, kernel):
            continue
        started = time.monotonic()
        path = cluster.write_reference(kernel, plat, nodes, map_by, nps, options, command)
        print(f"commbook: wrote {path} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    if args.kernel in (None, "allreduce"):
        started = time.monotonic()
        path, _ = collectives_page.write_reference(command)
        print(f"commbook: wrote {path} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    for op in simulated_trees.OPS:
        if args.kernel in (None, op):
            started = time.monotonic()
            path, _ = simulated_trees.write_reference(op, command)
            print(f"commbook: wrote {path} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


def run_validate(args) -> int:
    from ..simulate import runner, validation

    if not runner.status().ok:
        raise CLIError(runner.status().line())
    out = args.out if args.what != "all" else None
    if args.what in ("ring", "all"):
        points = validation.ring_points()
        print(validation.summary(points).to_string(index=False))
        print(f"commbook: wrote {validation.write_table(out, points)}", file=sys.stderr)
    if args.what in ("collectives", "all"):
        points = validation.collective_points()
        print(validation.collective_summary(points).to_string(index=False))
        print(f"commbook: wrote {validation.write_collectives_table(out, points)}", file=sys.stderr)
    if args.what in ("jacobi", "all"):
        from ..simulate import jacobi_validation

        points = jacobi_validation.jacobi_points()
        print(errors_line(jacobi_validation.errors(points)))
        print(f"commbook: wrote {jacobi_validation.write_table(out, points)}", file=sys.stderr)
    return 0


def errors_line(errors: dict) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in errors.items())
