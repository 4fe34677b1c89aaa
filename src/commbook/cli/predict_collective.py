"""`commbook predict collective`: Hockney-based cost of a collective algorithm.

    commbook predict collective --op bcast --algorithm binomial --np 16 --sizes 8,1K,1M \\
        --lambda-us 1.0 --bandwidth-MBps 12000 [--gamma-us-per-byte G] [--segments K]
        [--topology torus:16 --hop-us 0.05 [--map-by core] [--contention]] [--json]

Without --algorithm every algorithm of the operation is listed, fastest first for each size.

With --topology, rank r runs on processor r of the topology (on a cluster, placed like
Open MPI's --map-by core|socket|node). λ is taken to be the cost between the two closest
processors (one link, or two through a switch); every message that travels l links pays
--hop-us for each link beyond that, and a step costs its slowest message. With --contention
the n/b term of a message is multiplied by the number of the step's messages sharing its
busiest link (shortest-path routing, full-duplex links).
"""

from __future__ import annotations

import json

from .common import CLIError, lazy_description, parse_sizes


def _description() -> str:
    from ..models import collective_schedules

    return (
        "Predict the time of one collective call from λ and b. These are model "
        "values, not measurements. Operations and algorithms: "
        + "; ".join(f"{op}: {', '.join(algs)}" for op, algs in collective_schedules.ALGORITHMS.items())
    )


def register(models):
    p = models.add_parser("collective", help="cost of a collective algorithm (Hockney model, optional topology)")
    lazy_description(p, _description)
    p.add_argument("--op", required=True, help="collective (see the list above)")
    p.add_argument("--algorithm", help="algorithm (default: all of the operation, ranked)")
    p.add_argument("--np", type=int, required=True, dest="np_", metavar="P", help="number of processes")
    p.add_argument(
        "--sizes", default="8,1K,64K,1M", help="message sizes: '0,8,1K', '0:64M' or '1K:1M:4' (default %(default)s)"
    )
    p.add_argument("--lambda-us", type=float, help="latency λ in microseconds")
    p.add_argument("--bandwidth-MBps", type=float, help="bandwidth b in MB/s (1e6 B/s)")
    p.add_argument("--model", metavar="FIT.json", help="take λ and b from `commbook fit hockney --out`")
    p.add_argument(
        "--gamma-us-per-byte", type=float, default=0.0, help="reduction cost per byte (reduce, allreduce; default 0)"
    )
    p.add_argument("--segments", type=int, help="pipeline segment count k (default: optimal k*)")
    p.add_argument("--topology", help="e.g. ring:16, torus:16, hypercube:16, fat_tree:2x4, cluster:2x2x12")
    p.add_argument("--hop-us", type=float, help="per-hop time t_h in µs (needed with --topology)")
    p.add_argument(
        "--map-by",
        default="core",
        choices=["core", "socket", "node"],
        help="rank placement on a cluster topology (default %(default)s)",
    )
    p.add_argument("--contention", action="store_true", help="share link bandwidth between messages")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _parameters(args) -> tuple[float, float]:
    given = [a for a in ("lambda_us", "bandwidth_MBps") if getattr(args, a) is not None]
    if args.model:
        if given:
            raise CLIError("give either --model FIT.json or --lambda-us and --bandwidth-MBps, not both")
        from ..model_files import load_model
        from ..models.hockney import Hockney

        model = load_model(args.model)
        if not isinstance(model, Hockney):
            raise CLIError(f"{args.model}: a piecewise model has no single λ and b; fit one line")
        return model.lambda_us, model.bandwidth_MBps
    if len(given) < 2:
        raise CLIError("need --lambda-us and --bandwidth-MBps (or --model FIT.json)")
    return args.lambda_us, args.bandwidth_MBps


def _topology(args):
    if args.topology is None:
        for flag, value in (("--hop-us", args.hop_us), ("--contention", args.contention or None)):
            if value is not None:
                raise CLIError(f"{flag} needs --topology")
        if args.map_by != "core":
            raise CLIError("--map-by needs --topology")
        return None, None, 0.0
    from .. import topology as topo

    if args.hop_us is None:
        raise CLIError("--topology needs --hop-us (the per-hop time t_h in µs)")
    G = topo.parse_topology(args.topology)
    placement = topo.place(G, args.np_, args.map_by)
    return G, placement, args.hop_us


def run(args) -> int:
    import numpy as np

    from ..models import collective_costs, collective_schedules

    op = args.op
    if op not in collective_schedules.ALGORITHMS:
        raise CLIError(f"unknown collective '{op}'; valid: {', '.join(collective_schedules.OPERATIONS)}")
    algorithms = [args.algorithm] if args.algorithm else list(collective_schedules.ALGORITHMS[op])
    for alg in algorithms:
        if alg not in collective_schedules.ALGORITHMS[op]:
            raise CLIError(f"unknown {op} algorithm '{alg}'; valid: {', '.join(collective_schedules.ALGORITHMS[op])}")
    if args.np_ < 1:
        raise CLIError(f"--np must be >= 1, not {args.np_}")
    if args.segments is not None and args.segments < 1:
        raise CLIError(f"--segments must be >= 1, not {args.segments}")
    lam, b = _parameters(args)
    G, placement, t_h = _topology(args)
    sizes = np.array(parse_sizes(args.sizes), dtype=float)
    rows = []
    for alg in algorithms:
        for n in sizes:
            k = None
            if alg == "pipeline":
                k = args.segments or collective_costs.optimal_segments(args.np_, n, lam, b)
            t = collective_costs.predict(
                op,
                alg,
                args.np_,
                n,
                lam,
                b,
                args.gamma_us_per_byte,
                segments=k,
                topology=G,
                placement=placement,
                t_h=t_h,
                contention=args.contention,
            )
            rows.append(
                {
                    "algorithm": alg,
                    "size_bytes": int(n),
                    "t_us": float(t),
                    **({"segments": int(k)} if k is not None else {}),
                }
            )
    rows.sort(key=lambda r: (r["size_bytes"], r["t_us"]))
    for r in rows:
        r["rank"] = 1 + sum(1 for o in rows if o["size_bytes"] == r["size_bytes"] and o["t_us"] < r["t_us"])
    setup = {
        "op": op,
        "np": args.np_,
        "lambda_us": lam,
        "bandwidth_MBps": b,
        "gamma_us_per_byte": args.gamma_us_per_byte,
        "topology": args.topology,
        "hop_us": t_h if G is not None else None,
        "map_by": args.map_by if G is not None else None,
        "contention": args.contention,
    }
    if args.json:
        print(json.dumps({"model": setup, "predictions": rows}, indent=2))
        return 0
    where = (
        f", topology {args.topology} (map-by {args.map_by}, t_h = {t_h:g} µs"
        f"{', contention' if args.contention else ''})"
        if G is not None
        else ""
    )
    print(
        f"{op} on P = {args.np_}: λ = {lam:g} µs, b = {b:g} MB/s"
        f"{f', γ = {args.gamma_us_per_byte:g} µs/B' if args.gamma_us_per_byte else ''}{where}"
    )
    print("(model values, not measurements)")
    print(f"{'size_bytes':>12} {'algorithm':>18} {'t_us':>14} {'rank':>5}")
    for r in rows:
        alg = r["algorithm"] + (f" k={r['segments']}" if "segments" in r else "")
        print(f"{r['size_bytes']:>12d} {alg:>18} {r['t_us']:>14.4f} {r['rank']:>5d}")
    return 0
