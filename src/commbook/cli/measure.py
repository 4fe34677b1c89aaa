"""`commbook measure KERNEL --np P ... --out FILE`: run a kernel under mpiexec as a batch job.

The subcommands come from the kernel registry (commbook.registry.KERNELS): each registered
option becomes a flag passed through to the C kernel, which checks it again."""

from __future__ import annotations

import shlex
import sys

from .. import kernels, machine, registry
from .common import CLIError, command_group


def register(sub):
    benches = command_group(
        sub, "measure", "run a benchmark kernel under mpiexec and save tidy CSV", dest="kernel", metavar="KERNEL"
    )
    for spec in registry.KERNELS.values():
        b = benches.add_parser(spec.name, help=spec.help, description=spec.help)
        b.add_argument("--np", type=int, default=spec.default_np, help="MPI processes")
        b.add_argument("--out", help="tidy CSV to write (atomically; checked before the run); omit to only print")
        b.add_argument(
            "--timeout",
            type=float,
            default=kernels.DEFAULT_TIMEOUT,
            help="kill the job after this many seconds (default %(default)s)",
        )
        b.add_argument("--machine", default=None, help="machine name recorded in the file")
        b.add_argument(
            "--mapping",
            default=None,
            help="rank placement recorded (core/socket/node; default: read from where the ranks ran)",
        )
        b.add_argument(
            "--map-by",
            default=None,
            help="mpiexec's --map-by (e.g. node, core): "
            "how ranks are spread over the nodes of COMMBOOK_HOSTFILE or an allocation",
        )
        b.add_argument("--transport", default="", help="transport recorded (e.g. vader, ucx)")
        b.add_argument("--quiet", action="store_true", help="no progress lines")
        for opt in spec.options:
            dest = "k_" + opt.kernel_name
            if opt.flag_only:
                b.add_argument(
                    opt.flag, dest=dest, action="store_const", const=opt.set_value, default=None, help=opt.help
                )
            else:
                b.add_argument(opt.flag, dest=dest, default=opt.default, help=opt.help)
        b.set_defaults(func=run, spec=spec)


def run(args) -> int:
    from ..data import SavedElsewhere, check_output_path, write_measurements_keeping

    spec: registry.KernelSpec = args.spec
    if args.np < 1:
        raise CLIError(f"--np must be at least 1, not {args.np}")
    options = {name[2:]: v for name, v in vars(args).items() if name.startswith("k_") and v is not None}
    env = {}
    if spec.prepare:
        options, env = spec.prepare(dict(options))
    if args.out:
        check_output_path(args.out)  # before the run, not after it
    rows = []

    def progress(line: str):
        if not line.startswith("#") and line.strip():
            rows.append(line)
            if not args.quiet:
                print(f"  [{len(rows)}] {line}", file=sys.stderr, flush=True)

    if not args.quiet:
        print(f"commbook: running {spec.name} on {args.np} ranks ...", file=sys.stderr, flush=True)
    try:
        out = kernels.run_mpiexec(
            spec.source, args.np, options, timeout=args.timeout, env=env, on_line=progress, map_by=args.map_by
        )
    except kernels.ValidationFailed as e:
        said = e.output.result if e.output and e.output.result else f"VALIDATION FAILED: {e}"
        print(f"commbook: {spec.name}: {said}", file=sys.stderr)
        for line in [l for l in e.stderr.splitlines() if l.startswith("commbook kernel:")][:5]:
            print(f"  {line}", file=sys.stderr)  # which rank saw what
        return 3
    command = "commbook " + " ".join(shlex.quote(a) for a in args.argv)
    tidy = out.to_tidy(
        machine=args.machine or machine.name(),
        mapping=args.mapping or machine.mapping_of(out.meta.get("rank_hosts", ""), args.np),
        transport=args.transport,
        source=args.out or "stdout",
    )
    print(kernels.output_text(out))
    if spec.summary:
        print(spec.summary(out))
    if args.out:
        meta = kernels.measurement_meta(out, command)
        try:
            write_measurements_keeping(args.out, tidy, meta)
        except SavedElsewhere as e:
            print(f"commbook: error: {e}", file=sys.stderr)
            return 1
        print(f"commbook: wrote {len(tidy)} rows to {args.out}", file=sys.stderr)
    return 0
