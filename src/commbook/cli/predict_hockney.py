"""`commbook predict hockney`: evaluate t(n) = λ + n/b for given sizes.

Either from parameters (--lambda-us, --bandwidth-MBps) or from a fit file written by
`commbook fit hockney --out FIT.json` (a single line or a piecewise model)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .common import CLIError, parse_sizes

if TYPE_CHECKING:
    from ..models.hockney import Hockney, PiecewiseHockney


def register(models):
    p = models.add_parser(
        "hockney",
        help="Hockney model t = λ + n/b (from parameters or a fit file)",
        description="Predict ping-pong time t(n) = λ + n/b and effective bandwidth n/t. "
        "These are model values, not measurements.",
    )
    p.add_argument("--lambda-us", type=float, help="latency λ in microseconds")
    p.add_argument("--bandwidth-MBps", type=float, help="asymptotic bandwidth b in MB/s (1e6 B/s)")
    p.add_argument(
        "--model",
        metavar="FIT.json",
        help="a fit file from `commbook fit hockney --out`; to predict sizes that were "
        "not measured, fit with --piecewise --predictive (a descriptive fit is "
        "made to describe the measured sizes)",
    )
    p.add_argument(
        "--sizes", default="0:64M", help="sizes: '0,8,1K', '0:64M' (powers of two) or '1K:1M:4' (default %(default)s)"
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def model_from_args(args) -> Hockney | PiecewiseHockney:
    from ..model_files import load_model
    from ..models.hockney import Hockney

    given = [a for a in ("lambda_us", "bandwidth_MBps") if getattr(args, a) is not None]
    if args.model:
        if given:
            raise CLIError("give either --model FIT.json or --lambda-us and --bandwidth-MBps, not both")
        return load_model(args.model)
    if len(given) < 2:
        raise CLIError("need --lambda-us and --bandwidth-MBps (or --model FIT.json)")
    try:
        return Hockney(args.lambda_us, args.bandwidth_MBps)
    except ValueError as e:
        raise CLIError(str(e)) from None


def run(args) -> int:
    import numpy as np

    from ..models.hockney import PiecewiseHockney

    model = model_from_args(args)
    sizes = np.array(parse_sizes(args.sizes), dtype=float)
    t = model.time_us(sizes)
    bw = model.effective_bandwidth(sizes)
    seg = model.segment_index(sizes) + 1 if isinstance(model, PiecewiseHockney) else np.ones(sizes.size, int)
    if args.json:
        rows = [
            {
                "size_bytes": int(n),
                "t_us": float(ti),
                "bandwidth_MBps": float(b),
                **({"segment": int(s)} if isinstance(model, PiecewiseHockney) else {}),
            }
            for n, ti, b, s in zip(sizes, t, bw, seg)
        ]
        print(json.dumps({"model": model.to_dict(), "predictions": rows}, indent=2))
        return 0
    print(model)
    print("(model values, not measurements)")
    if args.model:
        from ..model_files import fit_setting
        from .fit import SETTING_TEXT

        setting = fit_setting(args.model)
        if setting in SETTING_TEXT:
            print(f"fit: {SETTING_TEXT[setting]}")
    head = f"{'size_bytes':>12} {'t_us':>12} {'bandwidth_MBps':>15}"
    if isinstance(model, PiecewiseHockney):
        head += f" {'segment':>8}"
    print(head)
    for n, ti, b, s in zip(sizes, t, bw, seg):
        line = f"{int(n):>12d} {ti:>12.4f} {b:>15.3f}"
        if isinstance(model, PiecewiseHockney):
            line += f" {int(s):>8d}"
        print(line)
    return 0
