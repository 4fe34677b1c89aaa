"""Emulated nodes: intra- against inter-node latency and bandwidth, uncapped and capped, with and
without a busy core, and the ring model's predicted against measured step at the node boundary.

    python benchmarks/emulated_nodes.py [--rate 1gbit] [--out benchmarks/results/emulated_nodes.md]
    chrt -f 1 python benchmarks/emulated_nodes.py --out benchmarks/results/emulated_nodes_fifo.md

Needs root (or user namespaces) like `commbook nodes up`. Every figure comes from the commands
the results file lists, run as written (`commbook nodes up`, `commbook nodes exec -- commbook
measure ...`); the ring part runs commbook.nodes.boundary.measure(), the book's own run. The busy
core is `nice -n 0 python3 -c 'while True: pass'`, started and killed here. Latency is the
fastest of 30 repetitions of 100 round trips (8 B, half a round trip); bandwidth is that of the
fastest repetition (the median's in brackets). Not a test: it records what happened, with the
load average (the machine is shared). Under `chrt -f 1` (root) every run goes ahead of the
machine's other work (SCHED_FIFO, inherited by the MPI ranks), as the shipped reference run did;
the busy core then stays an ordinary process (`chrt -o 0`), and the file says so.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from commbook import data, mpi_env
from commbook.nodes import boundary, launch

LATENCY = "pingpong --np 2 --sizes 8:8 --iterations 100 --repetitions 30"
PINGPONG_BW = "pingpong --np 2 --sizes 1M:1M --iterations 20 --repetitions 15"
STREAM_BW = "bandwidth --np 2 --mode uni --sizes 1M:1M --repetitions 7"
SPINNER = "nice -n 0 python3 -c 'while True: pass'"
FIFO = os.sched_getscheduler(0) == os.SCHED_FIFO


def sh(cmd: str, scratch: Path, env: dict) -> str:
    proc = subprocess.run(shlex.split(cmd), capture_output=True, text=True, cwd=scratch, env=env, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"`{cmd}` exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return proc.stdout


def measure(kind: str, map_by: str, bound: bool, scratch: Path, env: dict) -> tuple[str, str]:
    """Run one `commbook measure` on the login node; the figure and the exact command."""
    out = scratch / "m.csv"
    binding = " ".join(f"{k}={v}" for k, v in launch.one_node_binding(mpi_env.detect().family).items())
    prefix = f"env {binding} " if bound else ""
    args = {"latency": LATENCY, "pingpong": PINGPONG_BW, "stream": STREAM_BW}[kind]
    cmd = f"commbook nodes exec -- {prefix}commbook measure {args} --map-by {map_by} --quiet --out {out.name}"
    sh(cmd, scratch, env)
    row = data.read_measurements(out).table.iloc[0]
    if kind == "latency":
        return f"{row['t_min_us']:.2f} µs", cmd
    params = dict(p.split("=", 1) for p in str(row["params"]).split(";") if "=" in p)
    window = float(params.get("window", 1))
    best, median = (row["size_bytes"] * window / row[c] for c in ("t_min_us", "t_us"))
    return f"{best:,.0f} MB/s ({median:,.0f})", cmd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", default="1gbit", help="the capped case's rate (tc tbf)")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "emulated_nodes.md"))
    args = ap.parse_args()
    default_out = Path(__file__).parent / "results" / "emulated_nodes.md"
    args.out_name = "" if Path(args.out) == default_out else f"benchmarks/results/{Path(args.out).name}"
    scratch = Path(tempfile.mkdtemp(prefix="commbook-bench-nodes-"))
    scratch.chmod(0o755)
    env = {**os.environ, "COMMBOOK_NODES_DIR": str(scratch / "nodes")}
    load0 = os.getloadavg()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    rows, commands = [], []
    for rate in ("", args.rate):
        up = "commbook nodes up --nodes 2" + (f" --rate {rate}" if rate else "")
        sh(up, scratch, env)
        commands.append(up)
        try:
            for busy in (False, True):
                spinner = subprocess.Popen(shlex.split(("chrt -o 0 " if FIFO else "") + SPINNER)) if busy else None
                try:
                    kinds = ["latency"] if busy else ["latency", "pingpong", "stream"]
                    for kind in kinds:
                        for map_by, bound in (("core", True), ("core", False), ("node", False)):
                            if kind != "latency" and not bound and map_by == "core":
                                continue
                            figure, cmd = measure(kind, map_by, bound, scratch, env)
                            commands.append(cmd)
                            where = "intra (1 node)" if map_by == "core" else "inter (2 nodes)"
                            rows.append(
                                (
                                    rate or "uncapped",
                                    "busy core" if busy else "",
                                    kind,
                                    where,
                                    "bound" if bound else "unbound",
                                    figure,
                                )
                            )
                            print(*rows[-1], sep=" | ", flush=True)
                finally:
                    if spinner:
                        spinner.kill()
                        spinner.wait()
        finally:
            sh("commbook nodes down", scratch, env)
    commands.append("commbook nodes down")

    run = boundary.measure()  # the ring chapter's live run: 2 nodes x 2 slots, --map-by core
    links = boundary.fit_links(run)
    pred = boundary.ring_prediction(run, links)
    load1 = os.getloadavg()

    lines = [
        "# Emulated nodes: the node boundary from the command line",
        "",
        f"- command: `{'chrt -f 1 ' if FIFO else ''}python benchmarks/emulated_nodes.py --rate {args.rate}"
        f"{' --out ' + args.out_name if args.out_name else ''}`",
        *(["- scheduling: SCHED_FIFO priority 1 for every run (the machine's other work waits)"] if FIFO else []),
        f"- date: {started}; {run.meta.get('mpi_library', '')}; {os.cpu_count()} cores shared with other jobs",
        f"- load average (1/5/15 min) at start {'/'.join(f'{x:.2f}' for x in load0)}, "
        f"at end {'/'.join(f'{x:.2f}' for x in load1)}",
        "- link: TCP over a veth pair and a bridge on one machine (no network card); capped with tc tbf",
        f"- busy core: `{SPINNER}` running during the measurement, killed afterwards",
        "- latency: fastest of 30 repetitions of 100 round trips, 8 B, half a round trip; bandwidth:",
        "  1 MiB, the fastest repetition's (the median repetition's in brackets); ping-pong is",
        "  n / t of a half round trip, stream is `commbook measure bandwidth` (64 messages in flight)",
        "- bound: each rank on its own core (`commbook.nodes.launch.one_node_binding`, what",
        "  `--bind-to core` does); unbound: the emulated cluster's default (nodes share the cores)",
        "",
        "| link | load | what | ranks | binding | figure |",
        "|---|---|---|---|---|---|",
        *(f"| {' | '.join(r)} |" for r in rows),
        "",
        "## The ring's step at the node boundary (2 nodes x 2 slots, `--map-by core`)",
        "",
        "`commbook.nodes.boundary.measure()`, the ring chapter's live run (its commands: "
        "`commbook measure pingpong --np 2 --map-by core|node --sizes 0:4M` and "
        "`commbook measure ring --np P --map-by core --size 4 --iterations 200 --repetitions 7`, P = 1..4, "
        "on the login node of `commbook nodes up --nodes 2`). Hockney fits per link class:",
        "",
        *(f"- {c}: λ = {f.lambda_us:.3g} µs, b = {f.bandwidth_MBps:,.0f} MB/s" for c, f in links.items()),
        "",
        "| P | measured time per step (µs) | model (µs) |",
        "|---|---|---|",
        *(f"| {p} | {m:.2f} | {q:.2f} |" for p, m, q in zip(pred.P, pred.measured_step_us, pred.model_step_us)),
        "",
        f"Step at the boundary (P ≥ {pred.boundary_P} minus P < {pred.boundary_P}): measured "
        f"{pred.measured_jump_us:.2f} µs, model {pred.model_jump_us:.2f} µs, ratio {pred.ratio:.2f} "
        f"({boundary.closeness(pred.ratio)}).",
        "",
        "## Commands, in order",
        "",
        "```",
        *commands,
        "```",
        "",
    ]
    Path(args.out).write_text("\n".join(lines))
    for f in scratch.iterdir():
        f.unlink()
    scratch.rmdir()
    print("wrote", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
