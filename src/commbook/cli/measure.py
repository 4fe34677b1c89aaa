"""`commbook measure KERNEL --np P ... --out FILE`: run a kernel under mpiexec as a batch job.

The subcommands come from the kernel registry (commbook.registry.KERNELS): each registered
option becomes a flag passed through to the C kernel, which checks it again.

A run told to stop (SIGTERM or SIGHUP: a scheduler, a closed terminal, the emulated cluster's
removal) kills its MPI job, keeps the rows measured so far (written to --out like a full run,
with a `# cut_short:` line) and says so in one line."""

from __future__ import annotations

import contextlib
import shlex
import signal
import sys

from .. import kernels, machine, process_tree, registry
from .common import CLIError, add_kernel_options, command_group


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
        add_kernel_options(b, spec)
        b.set_defaults(func=run, spec=spec)


class Stopped(Exception):
    """The run was told to stop by a signal."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def stopped_by_signals():
    """While armed, SIGTERM and SIGHUP raise Stopped (once: later ones, and those after the
    run, are recorded and ignored while the rows are saved).

    process_tree's handlers are installed first, so the run's own call installs nothing over
    these; the run's process tree is killed by its `finally` as the exception passes."""
    process_tree.install_signal_handlers()
    said = {"signum": None, "armed": True}

    def handler(signum, frame):
        if said["signum"] is None:
            said["signum"] = signum
            if said["armed"]:
                raise Stopped(signum)

    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) != signal.SIG_IGN:
            previous[sig] = signal.signal(sig, handler)
    try:
        yield said
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def run(args) -> int:
    from ..data import check_output_path

    spec: registry.KernelSpec = args.spec
    if args.np < 1:
        raise CLIError(f"--np must be at least 1, not {args.np}")
    options = {name[2:]: v for name, v in vars(args).items() if name.startswith("k_") and v is not None}
    env = {}
    if spec.prepare:
        options, env = spec.prepare(dict(options))
    if args.out:
        check_output_path(args.out)  # before the run, not after it
    rows, seen = [], []  # data rows (progress), every output line (a run cut short is read from them)

    def progress(line: str):
        seen.append(line)
        if not line.startswith("#") and line.strip():
            rows.append(line)
            if not args.quiet:
                print(f"  [{len(rows)}] {line}", file=sys.stderr, flush=True)

    if not args.quiet:
        print(f"commbook: running {spec.name} on {args.np} ranks ...", file=sys.stderr, flush=True)
    with stopped_by_signals() as stop:
        try:
            out = kernels.run_mpiexec(
                spec.source, args.np, options, timeout=args.timeout, env=env, on_line=progress, map_by=args.map_by
            )
        except Stopped as e:
            return cut_short(args, spec, seen, e.signum)
        except kernels.ValidationFailed as e:
            said = e.output.result if e.output and e.output.result else f"VALIDATION FAILED: {e}"
            print(f"commbook: {spec.name}: {said}", file=sys.stderr)
            for line in [l for l in e.stderr.splitlines() if l.startswith("commbook kernel:")][:5]:
                print(f"  {line}", file=sys.stderr)  # which rank saw what
            return 3
        except kernels.KernelFailed:
            # the job was killed under us (the emulated cluster went away and its SIGTERM
            # reached mpiexec before this process): the same ending
            stop["armed"] = False  # a signal from here on is recorded, not raised
            if stop["signum"] is None and not _cluster_stopping():
                raise
            return cut_short(args, spec, seen, stop["signum"] or signal.SIGTERM)
        finally:
            stop["armed"] = False  # the run is over: a signal now waits for its rows to be saved
        saved = save(args, spec, out)
    return 128 + stop["signum"] if stop["signum"] else saved


def _cluster_stopping() -> bool:
    from ..nodes import stopping_here

    return stopping_here()


def cut_short(args, spec, seen: list[str], signum: int) -> int:
    """Keep what a run told to stop had measured; say so in one line; exit 128 + signum."""
    from ..data import SavedElsewhere, write_measurements_keeping

    name = signal.Signals(signum).name
    why = (
        "the emulated cluster went away during the run (`commbook nodes down`, or its keeper ended)"
        if _cluster_stopping()
        else f"stopped by {name} during the run"
    )
    try:
        out = kernels.parse_output("\n".join(seen))
    except kernels.KernelError:
        out = None
    n = 0 if out is None else len(out.table)
    kept = "nothing had been measured yet"
    if n and args.out:
        tidy = _tidy(args, out)
        meta = kernels.measurement_meta(out, _command(args), {"cut_short": f"{why}; {n} rows measured"})
        try:
            write_measurements_keeping(args.out, tidy, meta)
            kept = f"the {n} rows measured were written to {args.out}"
        except SavedElsewhere as e:
            kept = f"the {n} rows measured are kept in {e.saved} (could not write {args.out}: {e.reason})"
    elif n:
        print(kernels.output_text(out))
        kept = f"the {n} rows measured are printed above"
    try:
        print(f"commbook: error: {spec.name}: {why}; {kept}", file=sys.stderr, flush=True)
    except OSError:  # a terminal that hung up
        pass
    return 128 + signum


def _command(args) -> str:
    return "commbook " + " ".join(shlex.quote(a) for a in args.argv)


def _tidy(args, out):
    return out.to_tidy(
        machine=args.machine or machine.name(),
        mapping=args.mapping or machine.mapping_of(out.meta.get("rank_hosts", ""), args.np),
        transport=args.transport,
        source=args.out or "stdout",
    )


def save(args, spec, out) -> int:
    from ..data import SavedElsewhere, write_measurements_keeping

    command = _command(args)
    tidy = _tidy(args, out)
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
