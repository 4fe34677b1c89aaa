"""SMPI's network parameters fitted to ORFEO's ping-pong (and to nothing else), stored as data.

SMPI prices a message of n bytes on a route as ``lat_factor(n) * latency + n / (bw_factor(n) *
bandwidth)``: the route's latency and bandwidth come from the platform's links, the two factors
are piecewise constant in n and global (``smpi/lat-factor``, ``smpi/bw-factor``). So the fit has
one (latency, bandwidth) per link class (core = same socket, socket = across sockets, node =
across nodes; the links of the generated platform) and one pair of factors per message-size
segment shared by all classes (the first segment's are 1), per transport:

    t_c(n) = f_k * L_c + n / (g_k * B_c)      for n in segment k

minimised on relative error with the package's robust loss (commbook.fit), the segment
boundaries chosen by a grid search. The eager threshold (``smpi/send-is-detached-thresh``) cannot
be fitted from a ping-pong (it changes when MPI_Send returns, not the transfer's time): it is the
size where the intra-node times first fall as messages grow, the mark of the switch from copies
through a shared buffer to a single copy (rendezvous), and it is also a segment boundary.

``commbook simulate calibrate`` writes ``data/simulated/calibration.json``; the same data and
scipy give the same bytes (parameters are rounded to four significant digits before the errors
are computed, so the file is consistent with itself).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from .. import config

CLASSES = ("core", "socket", "node")
TRANSPORTS = ("ucx", "ob1-tcp")  # Open MPI 4.1.1's two transports measured in all three classes
LIBRARY = "Open MPI 4.1.1"  # the library of ORFEO's ring data: what the simulation stands in for
MACHINE = "orfeo-thin"
# candidate segment boundaries (bytes): where protocols and caches change on ORFEO
LOW_BOUNDARIES = tuple(2**k for k in range(6, 14))  # 64 B .. 8 KiB
HIGH_BOUNDARIES = tuple(2**k for k in range(20, 25))  # 1 MiB .. 16 MiB
FACTOR_RANGE = (1e-2, 1e2)  # a segment factor beyond this is a fit that lost the parameter
DIGITS = 4


def calibration_path() -> Path:
    return config.data_dir() / "simulated" / "calibration.json"


def _round(x: float) -> float:
    return float(f"{x:.{DIGITS}g}")


def pingpong_points(transport: str):
    """The ORFEO ping-pong points a transport is fitted to: (table, provenance caption)."""
    from .. import orfeo

    df, caption = orfeo.load("pingpong", machine=MACHINE)
    keep = (
        (df.mpi_library == LIBRARY)
        & (df.transport == transport)
        & (df.params.fillna("") == "")  # not the 'nocache' variant
        & df.mapping.isin(CLASSES)
    )
    sel = df[keep].sort_values(["mapping", "dataset", "size_bytes"], kind="stable").reset_index(drop=True)
    if sel.empty:
        raise LookupError(f"no ORFEO ping-pong rows for {LIBRARY} {transport} on {MACHINE}")
    return sel, caption


def eager_threshold(sel) -> int:
    """The first size where an intra-node time is lower than the previous size's (median over
    the datasets): the switch to a single-copy (rendezvous) protocol."""
    intra = sel[sel.mapping.isin(["core", "socket"])]
    med = intra.groupby(["mapping", "size_bytes"]).t_us.median()
    drops = []
    for _, series in med.groupby(level=0):
        s = series.droplevel(0).sort_index()
        fall = s[s.diff() < 0]
        fall = fall[fall.index >= 1024]  # below 1 KiB a dip is noise of 0.01 µs
        if len(fall):
            drops.append(int(fall.index[0]))
    return min(drops) if drops else 65536


def model_times(sizes, classes, lat: dict, bw: dict, bounds, lat_f, bw_f) -> np.ndarray:
    """SMPI's price of each message (µs): bw in MB/s (bytes per µs), factors per segment."""
    sizes = np.asarray(sizes, dtype=float)
    seg = np.searchsorted(np.asarray(bounds, dtype=float), sizes, side="right")
    L = np.array([lat[c] for c in classes])
    B = np.array([bw[c] for c in classes])
    return np.asarray(lat_f)[seg] * L + sizes / (np.asarray(bw_f)[seg] * B)


def _fit(sel, bounds):
    from scipy.optimize import least_squares

    from ..fit import DEFAULT_F_SCALE, DEFAULT_LOSS

    n, t, classes = sel.size_bytes.to_numpy(float), sel.t_us.to_numpy(float), list(sel.mapping)
    k = len(bounds)
    x0 = []
    for c in CLASSES:
        s = sel[sel.mapping == c]
        big = s[s.size_bytes == s.size_bytes.max()]
        x0 += [np.log(max(s[s.size_bytes <= 8].t_us.median(), 1e-3)), np.log(big.size_bytes.max() / big.t_us.median())]
    x0 = np.array(x0 + [0.0] * (2 * k))

    def unpack(x):
        lat = {c: np.exp(x[2 * i]) for i, c in enumerate(CLASSES)}
        bw = {c: np.exp(x[2 * i + 1]) for i, c in enumerate(CLASSES)}
        f = np.exp(np.concatenate([[0.0], x[6 : 6 + k]]))
        g = np.exp(np.concatenate([[0.0], x[6 + k :]]))
        return lat, bw, f, g

    def resid(x):
        return model_times(n, classes, *unpack(x)[:2], bounds, *unpack(x)[2:]) / t - 1.0

    lo = np.concatenate([np.full(6, -np.inf), np.full(2 * k, np.log(FACTOR_RANGE[0]))])
    hi = np.concatenate([np.full(6, np.inf), np.full(2 * k, np.log(FACTOR_RANGE[1]))])
    r = least_squares(resid, x0, bounds=(lo, hi), loss=DEFAULT_LOSS, f_scale=DEFAULT_F_SCALE, method="trf")
    return unpack(r.x), float(r.cost)


def _errors(sel, lat, bw, bounds, f, g) -> dict:
    pred = model_times(sel.size_bytes, list(sel.mapping), lat, bw, bounds, f, g)
    rel = np.abs(pred / sel.t_us.to_numpy(float) - 1.0)

    def summary(mask) -> dict:
        e = rel[mask]
        return {
            "points": int(mask.sum()),
            "median_pct": round(float(np.median(e)) * 100, 1),
            "max_pct": round(float(np.max(e)) * 100, 1),
            "within_10pct": round(float(np.mean(e <= 0.10)), 3),
            "within_25pct": round(float(np.mean(e <= 0.25)), 3),
        }

    out = {"all": summary(np.ones(len(sel), bool))}
    for c in CLASSES:
        out[c] = summary((sel.mapping == c).to_numpy())
    return out


def calibrate_transport(transport: str) -> dict:
    """The fitted parameters of one transport, with their error on the ping-pong itself."""
    sel, _ = pingpong_points(transport)
    eager = eager_threshold(sel)
    best = None
    for low, high in itertools.product(LOW_BOUNDARIES, HIGH_BOUNDARIES):
        bounds = tuple(sorted({low, eager, high}))
        params, cost = _fit(sel, bounds)
        if best is None or cost < best[2] - 1e-12:
            best = (bounds, params, cost)
    bounds, (lat, bw, f, g), _ = best
    lat = {c: _round(v) for c, v in lat.items()}
    bw = {c: _round(v) for c, v in bw.items()}
    f, g = [_round(v) for v in f], [_round(v) for v in g]
    starts = [0, *bounds]
    return {
        "links": {c: {"latency_us": lat[c], "bandwidth_MBps": bw[c]} for c in CLASSES},
        "segments": [{"from_bytes": int(s), "lat_factor": f[i], "bw_factor": g[i]} for i, s in enumerate(starts)],
        "eager_bytes": int(eager),
        "error_on_pingpong": _errors(sel, lat, bw, bounds, f, g),
        "datasets": sorted(set(sel.dataset)),
        "sources": sorted(set(sel.source)),
    }


def calibrate() -> dict:
    """The whole calibration file's content (every transport)."""
    _, caption = pingpong_points(TRANSPORTS[0])
    return {
        "what": "SimGrid SMPI network parameters for the generated ORFEO platforms, fitted to ORFEO ping-pong only",
        "machine": MACHINE,
        "mpi_library": LIBRARY,
        "default_transport": TRANSPORTS[0],
        "model": "t_c(n) = lat_factor(n) * latency_c + n / (bw_factor(n) * bandwidth_c); "
        "c = core (same socket), socket (across sockets), node (across nodes); factors piecewise in n, shared by the classes",
        "fit": "scipy.optimize.least_squares on relative error, loss soft_l1, f_scale 0.05 (commbook.fit); "
        f"segment boundaries by grid search over {LOW_BOUNDARIES[0]}..{LOW_BOUNDARIES[-1]} B and "
        f"{HIGH_BOUNDARIES[0]}..{HIGH_BOUNDARIES[-1]} B plus the eager threshold; parameters rounded to {DIGITS} digits",
        "eager": "first size >= 1 KiB where an intra-node ping-pong time falls as the size grows (the switch to single copy)",
        "data": caption,
        "command": "commbook simulate calibrate",
        "transports": {t: calibrate_transport(t) for t in TRANSPORTS},
    }


def render(content: dict) -> str:
    return json.dumps(content, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def write(path: Path | None = None) -> Path:
    from ..data import atomic_write_text

    path = Path(path) if path else calibration_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, render(calibrate()))
    return path


def load(path: Path | None = None) -> dict:
    path = Path(path) if path else calibration_path()
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no SMPI calibration; run `commbook simulate calibrate`") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None


def transport_parameters(transport: str | None = None, content: dict | None = None) -> dict:
    """One transport's entry of the calibration (the default transport's without a name)."""
    content = content or load()
    name = transport or content["default_transport"]
    if name not in content["transports"]:
        raise ValueError(f"no calibration for transport '{name}'; known: {', '.join(content['transports'])}")
    return content["transports"][name]


def smpi_options(params: dict) -> list[str]:
    """The --cfg options that carry a calibration into smpirun."""
    segs = params["segments"]
    lat = ";".join(f"{s['from_bytes']}:{s['lat_factor']:g}" for s in segs)
    bw = ";".join(f"{s['from_bytes']}:{s['bw_factor']:g}" for s in segs)
    return [
        f"--cfg=smpi/lat-factor:{lat}",
        f"--cfg=smpi/bw-factor:{bw}",
        f"--cfg=smpi/send-is-detached-thresh:{params['eager_bytes']}",
        f"--cfg=smpi/async-small-thresh:{params['eager_bytes']}",
        "--cfg=network/crosstraffic:0",  # ORFEO's ping-pong is what the links were fitted to
    ]


JACOBI_SEED_L = 1200  # the report's single-process sweep is over 1200^3 points
JACOBI_COMPUTE_SOURCE = (
    "one process's measured sweep rate, 1200^3 / T_s of data/orfeo jacobi_seed "
    "(commbook.simulate.calibration.jacobi_compute_lups)"
)


def jacobi_compute_lups(machine: str = MACHINE) -> int:
    """The Jacobi kernel's compute side on simulated `machine` nodes (its --sim-lups): one
    process's measured sweep rate, 1200^3 / T_s of the report's single-process sweep
    (data/orfeo jacobi_seed), in lattice updates per second. The chapter's model uses the same
    T_s, so simulation and model differ by their communication only."""
    from .. import orfeo

    seed = orfeo.summary_table("jacobi_seed")
    row = seed[(seed.machine == machine) & (seed.quantity == "T_s")]
    if row.empty:
        raise LookupError(f"no single-process Jacobi sweep time for {machine} in jacobi_seed")
    return round(JACOBI_SEED_L**3 / float(row.value.iloc[0]))
