"""`commbook nodes up --nodes N [--rate RATE] [--slurm] | status | exec | down`: an emulated
cluster of N nodes on this machine (commbook.nodes)."""

from __future__ import annotations

import os
import sys
import time

from .common import CLIError, command_group


def register(sub):
    acts = command_group(
        sub,
        "nodes",
        "an emulated cluster of 2-8 nodes on this machine (namespaces, a virtual link, optionally Slurm)",
        description="Emulated nodes: each its own hostname, network and IPC "
        "namespace, joined by veths on a bridge. TCP over a virtual link on one "
        "machine, no network card: the node boundary to measure, not a network's "
        "performance.",
    )
    u = acts.add_parser("up", help="make the nodes (and Slurm) and return once they are ready")
    u.add_argument("--nodes", type=int, default=3, help="number of nodes, 2 to 8 (default 3)")
    u.add_argument("--rate", default="", help="cap every node's link (tc tbf), e.g. 1gbit")
    u.add_argument("--slurm", action="store_true", help="a Slurm controller on the login node and one slurmd per node")
    u.set_defaults(func=run_up)
    acts.add_parser("down", help="remove everything `up` made").set_defaults(func=run_down)
    acts.add_parser("status", help="what is up, and what is wrong").set_defaults(func=run_status)
    e = acts.add_parser(
        "exec",
        help="run a command on the login node (or --node NAME) with the "
        "cluster's environment: `commbook nodes exec -- mpiexec -n 2 ...`",
    )
    e.add_argument("--node", default=None, help="node to run on (default: the login node)")
    e.add_argument("command", nargs="+", help="the command and its arguments (after --)")
    e.set_defaults(func=run_exec)


def _nodes():
    from .. import nodes

    return nodes


def run_up(args) -> int:
    nodes = _nodes()
    from ..nodes import lifecycle

    t0 = time.perf_counter()
    try:
        record, _ = lifecycle.up(args.nodes, args.rate, args.slurm)
    except KeyboardInterrupt:
        raise CLIError("interrupted during `nodes up`: everything it had made was removed") from None
    except nodes.NodesError as e:
        raise CLIError(str(e)) from None
    extra = f", links capped at {record.rate}" if record.rate else ""
    extra += ", Slurm (partition nodes)" if record.slurm else ""
    print(
        f"commbook: {len(record.nodes)} emulated nodes up in {time.perf_counter() - t0:.2f} s "
        f"({', '.join(record.nodes)} and {record.login}{extra}; {record.mode} namespaces). "
        f"Run commands with `commbook nodes exec -- CMD`; remove with `commbook nodes down`."
    )
    return 0


def run_down(args) -> int:
    nodes = _nodes()
    from ..nodes import lifecycle

    t0 = time.perf_counter()
    try:
        record, left = lifecycle.down()
    except nodes.NodesError as e:
        raise CLIError(str(e)) from None
    if left:
        raise CLIError(f"could not remove: {'; '.join(left)}")
    print(f"commbook: {len(record.nodes)} emulated nodes removed in {time.perf_counter() - t0:.2f} s")
    return 0


def run_status(args) -> int:
    nodes = _nodes()
    from ..nodes import lifecycle

    try:
        record, problems = lifecycle.status()
    except nodes.NodesError as e:
        raise CLIError(str(e)) from None
    if record is None:
        print("commbook: no emulated cluster is up")
        return 0
    print(
        f"{len(record.nodes)} emulated nodes ({', '.join(record.nodes)}; login node "
        f"{record.login}), {record.mode} namespaces, link "
        f"{'capped at ' + record.rate if record.rate else 'uncapped'}, Slurm "
        f"{'yes' if record.slurm else 'no'}; recorded in {record.run_dir}"
    )
    for line in problems:
        print(f"commbook: problem: {line}", file=sys.stderr)
    return 1 if problems else 0


def run_exec(args) -> int:
    nodes = _nodes()
    from ..nodes import launch, lifecycle, netns

    record, problems = lifecycle.status()
    if record is None:
        raise CLIError("no emulated cluster is up: `commbook nodes up` first")
    node = args.node or record.login
    if node not in [record.login] + record.nodes:
        raise CLIError(f"--node {node}: not one of {', '.join([record.login] + record.nodes)}")
    if problems and not lifecycle.keeper_alive(record):
        raise CLIError(problems[0])
    env = launch.login_environment(record)
    argv = netns.enter_command(record, node) + args.command
    del nodes
    sys.stdout.flush()
    os.execvpe(argv[0], argv, env)
    return 127  # not reached
