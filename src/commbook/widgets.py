"""Static (matplotlib) figures of the chapters' models for given parameters, refusing impossible
values with a clear message. The live explorers of the book (recomputed in the browser, no
kernel) are in :mod:`commbook.explorers`. One section per chapter."""
from __future__ import annotations


def positive(name: str, value: float) -> float:
    """Refuse a non-positive or non-finite parameter with a clear message."""
    import math
    if value is None or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, not {value!r}")
    return float(value)


# --- ping-pong -----------------------------------------------------------------------------



def hockney_figure(lambda_us: float, bandwidth_MBps: float, measured=None, label="",
                   sizes=None, ax=None):
    """Time and effective bandwidth of the Hockney model t = λ + n/b, over measured points."""
    import numpy as np

    from . import plotting
    import matplotlib.pyplot as plt
    from .models.hockney import Hockney

    lam = positive("λ (µs)", lambda_us) if lambda_us != 0 else 0.0
    model = Hockney(lam, positive("b (MB/s)", bandwidth_MBps))
    n = np.asarray(sizes if sizes is not None else 2.0 ** np.arange(0, 27), float)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8))
    for a in (a1, a2):
        a.set_xscale("log", base=2)
        a.grid(True, which="both", alpha=0.3)
        a.set_xlabel("message size n (bytes)")
    a1.set_yscale("log")
    a1.set_ylabel("time t (µs)")
    a2.set_ylabel("bandwidth n/t (MB/s)")
    if measured is not None and len(measured):
        m = measured[measured["size_bytes"] > 0]
        plotting.measured(a1, m["size_bytes"], m["t_us"], m["t_min_us"], m["t_max_us"],
                       label="measured", color="C0")
        plotting.measured(a2, m["size_bytes"], m["size_bytes"] / m["t_us"], label="measured",
                       color="C0")
    name = f"Hockney model{': ' + label if label else ''}"
    plotting.model_line(a1, n, model.time_us(n), label=name, color="C3")
    plotting.model_line(a2, n, model.effective_bandwidth(n), label=name, color="C3")
    a2.axhline(model.bandwidth_MBps, ls=":", color="C3", lw=1)
    a1.axvline(model.n_half, ls=":", color="grey", lw=1)
    a1.annotate(f"n½ = {model.n_half:,.0f} B", (model.n_half, a1.get_ylim()[0]),
                xytext=(4, 6), textcoords="offset points", fontsize=8, color="grey")
    a1.legend(fontsize=8)
    a2.legend(fontsize=8)
    fig.suptitle(f"λ = {model.lambda_us:.3g} µs, b = {model.bandwidth_MBps:,.0f} MB/s", fontsize=10)
    fig.tight_layout()
    return fig


# --- ring ----------------------------------------------------------------------------------

RING_CLASSES = ("core", "socket", "node")

RING_P_MAX = 1024


def ring_figure(lambda_us: dict, bandwidth_MBps: dict, cores_per_socket: int = 12,
                sockets_per_node: int = 2, P_max: int = 48, n_bytes: int = 4,
                messages_per_step: float = 2.0, measured=(), title=None):
    """The ring model T(P) = m·P·max(λ_c + n/b_c) for P = 1..P_max over measured series, with
    the placement's boundaries (where a dearer link class enters the ring) marked."""
    import numpy as np

    from .chapters import ring as ring_chapter
    from .models.hockney import Hockney
    from .models.ring import Placement, ring_time

    links = {}
    for c in RING_CLASSES:
        lam = lambda_us[c]
        if lam != 0:
            positive(f"λ_{c} (µs)", lam)
        links[c] = Hockney(lam, positive(f"b_{c} (MB/s)", bandwidth_MBps[c]))
    P_max = int(positive("P_max", P_max))
    if P_max > RING_P_MAX:
        raise ValueError(f"P_max must be at most {RING_P_MAX}, not {P_max}")
    if not 1 <= messages_per_step <= 2:
        raise ValueError(f"messages per step must be between 1 and 2, not {messages_per_step}")
    placement = Placement(int(cores_per_socket), int(sockets_per_node))
    P = np.arange(1, P_max + 1)
    t = ring_time(P, float(n_bytes), links, placement, messages_per_step)
    shown = [(label, df[df["np"] <= P_max]) for label, df in measured]
    fig = ring_chapter.plot_ring(
        shown, [(f"{messages_per_step:g}·P·max(λ + n/b), n = {n_bytes:,} B", P, t)],
        placement.boundaries(P_max),
        title=title or (f"Ring model: {cores_per_socket} cores/socket x {sockets_per_node} "
                        f"sockets/node, map by core"), legend="upper left")
    fig.axes[0].set_xlim(0, P_max + 1)
    return fig


# --- matrix addition -------------------------------------------------------------------------

MATRIX_MAX_ELEMENTS = 1 << 34


def parse_shape(text: str) -> tuple[int, int, int]:
    """'2400x100x100' -> (2400, 100, 100); a clear ValueError for anything else."""
    from .models.matrix import _dims

    shape = _dims("shape", str(text).strip())
    if shape[0] * shape[1] * shape[2] > MATRIX_MAX_ELEMENTS:
        raise ValueError(f"shape {text} has more than {MATRIX_MAX_ELEMENTS:,} elements")
    return shape


def matrix_figure(shape, P: int, grid, lambda_us: float, bandwidth_MBps: float, add_rate: float,
                  algorithm: str = "linear", measured: dict | None = None, title=None):
    """Left: model phases (scatter, add, gather) for every grid of P processes that fits the
    matrix, the chosen grid outlined, measured totals as markers. Right: model speedup against
    one core as P grows (1-D grids), next to the ideal P."""
    import numpy as np

    from . import plotting
    from .chapters import matrix_add as matrix_add_chapter
    import matplotlib.pyplot as plt
    from .models import matrix as M
    from .models.hockney import Hockney

    shape = parse_shape(shape) if isinstance(shape, str) else M._dims("shape", shape)
    link = Hockney(lambda_us if lambda_us == 0 else positive("λ (µs)", lambda_us),
                   positive("b (MB/s)", bandwidth_MBps))
    positive("add rate", add_rate)
    P = int(positive("P", P))
    grid = M.check_grid(shape, grid)[1]
    if int(np.prod(grid)) != P:
        raise ValueError(f"grid {M.grid_name(grid)} does not have {P} processes")
    gs = [g for g in M.grids(P) if all(a <= b for a, b in zip(g, shape))]
    preds = {g: M.predict(shape, g, link, add_rate, algorithm=algorithm) for g in gs}
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.0), gridspec_kw={"width_ratios": [3, 2]})
    x = np.arange(len(gs))
    bottom = np.zeros(len(gs))
    for phase in ("scatter", "add", "gather"):
        v = np.array([getattr(preds[g], phase) for g in gs]) / 1e3
        bars = a1.bar(x, v, 0.6, bottom=bottom, color=matrix_add_chapter.PHASE_COLORS[phase],
                      label=f"{phase} (model)")
        bottom += v
        for i, g in enumerate(gs):
            if g == grid:
                bars[i].set_edgecolor("k")
                bars[i].set_linewidth(2)
    if measured:
        names = [M.grid_name(g) for g in gs]
        mx = [names.index(k) for k in measured if k in names]
        a1.plot(mx, [measured[names[i]] / 1e3 for i in mx], "ko", ms=5, label="measured total")
    a1.set_xticks(x, [M.grid_name(g) for g in gs], rotation=60 if len(gs) > 8 else 0, fontsize=8)
    a1.set_ylabel("time (ms)")
    a1.set_title(title or f"{M.grid_name(shape)} on {P} processes, {algorithm} scatter/gather "
                 f"(model)", fontsize=10)
    a1.grid(True, axis="y", alpha=0.3)
    a1.legend(fontsize=8)
    chosen = preds[grid]
    a2.annotate(f"{M.grid_name(grid)}: total {chosen.total / 1e3:.3g} ms, speedup "
                f"{chosen.speedup:.2f}\nhalo per exchange: {M.halo_elements(shape, grid):,} elements\n"
                f"(least: {M.grid_name(M.best_grid(shape, P))}, "
                f"{M.halo_elements(shape, M.best_grid(shape, P)):,})",
                (0.02, 0.98), xycoords="axes fraction", va="top", fontsize=8,
                bbox=dict(boxstyle="round", fc="white", ec="0.8"))
    Ps = np.array([p for p in range(1, max(2 * P, 32) + 1) if p <= shape[0]])
    sp = [M.predict(shape, (int(p), 1, 1), link, add_rate, algorithm=algorithm).speedup for p in Ps]
    plotting.model_line(a2, Ps, sp, label=f"speedup, {algorithm} scatter/gather (model)", color="C3")
    a2.plot(Ps, Ps, ":", color="0.5", label="ideal: speedup = P")
    a2.axhline(1, color="k", lw=0.8)
    a2.set_yscale("log")
    a2.set_xlabel("processes P")
    a2.set_ylabel("serial add / distributed total")
    a2.grid(True, which="both", alpha=0.3)
    a2.legend(fontsize=8)
    fig.tight_layout()
    return fig


# --- collectives and topology ---------------------------------------------------------------

# topology part (book/topology.md). Sizes are offered from menus, so only valid p can be chosen.
TOPOLOGY_SIZES = {
    "linear": ["4", "8", "12", "16"],
    "ring": ["4", "8", "12", "16"],
    "mesh": ["4", "9", "16", "25", "36"],
    "torus": ["9", "16", "25", "36"],
    "hypercube": ["4", "8", "16", "32"],
    "tree": ["7", "15", "31"],
    "switch_tree": ["4", "8", "16"],
    "fat_tree": ["2x2", "2x3", "2x4", "4x2"],
    "cluster": ["1x2x4", "2x2x4", "2x2x12"],
}
TOPOLOGY_OVERLAYS = {
    "(none)": None,
    "bcast binomial": ("bcast", "binomial"),
    "bcast chain": ("bcast", "chain"),
    "bcast binary tree": ("bcast", "binary_tree"),
    "gather binomial": ("gather", "binomial"),
    "allreduce recursive doubling": ("allreduce", "recursive_doubling"),
}


def topology_figure(kind: str = "torus", size: str = "16", overlay: str = "(none)"):
    """Static figure: the topology drawn with an algorithm's messages (one colour per step)
    and its metrics computed from the graph next to the lecture's formulas."""
    from .chapters import topology as topology_chapter
    import matplotlib.pyplot as plt
    from . import topology as topo
    from .models import collectives as coll

    if kind not in TOPOLOGY_SIZES:
        raise ValueError(f"unknown topology '{kind}'; valid: {', '.join(TOPOLOGY_SIZES)}")
    if overlay not in TOPOLOGY_OVERLAYS:
        raise ValueError(f"unknown overlay '{overlay}'; valid: {', '.join(TOPOLOGY_OVERLAYS)}")
    G = topo.parse_topology(f"{kind}:{size}")
    p = G.graph["p"]
    messages = None
    if TOPOLOGY_OVERLAYS[overlay]:
        messages = coll.schedule(*TOPOLOGY_OVERLAYS[overlay], p)
    fig, (ax, tx) = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw=dict(width_ratios=[2.2, 1]))
    topology_chapter.draw_topology(G, messages, ax=ax, title=f"{kind}, p = {p}" + (f": {overlay}" if messages else ""))
    m = topo.metrics(G)
    formulas = topo.CLOSED_FORM_TEXT[kind]
    bis = ("" if m["bisection_exact"] else "<= ") + str(m["bisection"])  # <=: an upper bound
    cell = lambda text, value: text if value is None else f"{text} = {value}"  # noqa: E731
    rows = [("", "graph", "formula"),
            ("diameter", str(m["diameter"]), cell(formulas[0], m["diameter_formula"])),
            ("bisection", bis, cell(formulas[1], m["bisection_formula"])),
            ("links", str(m["links"]), cell(formulas[2], m["links_formula"]))]
    if messages:
        loads = [max(topo.link_loads(G, [(a.src, a.dst) for a in step]).values()) for step in messages]
        rows.append(("steps", str(len(messages)), f"busiest link: {max(loads)} msg"))
    tx.axis("off")
    table = tx.table(cellText=[list(r) for r in rows[1:]], colLabels=list(rows[0]),
                     loc="center", cellLoc="left", colWidths=[0.3, 0.3, 0.6])
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    table.scale(1.0, 1.5)
    fig.tight_layout()
    return fig


# collectives part (book/collectives.md): an algorithm's messages on a topology and the
# predicted time of every algorithm. Menus offer only valid choices; numbers are bounded.
COLLECTIVE_TOPOLOGIES = {
    "cluster 2 nodes x 2 sockets x 4 cores": "cluster:2x2x4",
    "cluster 2 nodes x 2 sockets x 12 cores (ORFEO THIN)": "cluster:2x2x12",
    "ring of 8": "ring:8",
    "ring of 16": "ring:16",
    "2-D torus 4x4": "torus:16",
    "hypercube of 16": "hypercube:16",
    "fat tree 2-ary 4-tree (16)": "fat_tree:2x4",
    "tree of switches (16)": "switch_tree:16",
}


def _collective_parameters(op, algorithm, P, n, lam, b, t_h, topology, placement):
    import numpy as np

    from . import topology as topo
    from .models import collectives as mc

    mc.check_algorithm(op, algorithm)
    if topology not in COLLECTIVE_TOPOLOGIES.values():
        raise ValueError(f"unknown topology '{topology}'; valid: {', '.join(COLLECTIVE_TOPOLOGIES.values())}")
    G = topo.parse_topology(topology)
    procs = len(topo.processors(G))
    if isinstance(P, bool) or int(P) != P or not 2 <= P <= procs:
        raise ValueError(f"P must be a whole number from 2 to {procs} (processors of {topology}), not {P!r}")
    if n is None or not np.isfinite(n) or n < 0:
        raise ValueError(f"message size n must be a number >= 0, not {n!r}")
    positive("bandwidth b", b)
    for name, v in (("latency λ", lam), ("per-hop time t_h", t_h)):
        if v is None or not np.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a number >= 0, not {v!r}")
    if placement != "core" and G.graph["kind"] != "cluster":
        raise ValueError(f"placement by {placement} needs a cluster topology")
    return G, topo.place(G, int(P), placement)


def collective_figure(op: str = "bcast", algorithm: str = "binomial", P: int = 16,
                      n: float = 65536, lam: float = 1.0, b: float = 5000.0, t_h: float = 0.0,
                      topology: str = "cluster:2x2x4", placement: str = "core",
                      contention: bool = True):
    """Left: the topology with the algorithm's messages, one colour per step, ranks placed
    by `placement`. Right: the predicted time of every algorithm of `op` (Hockney model on
    this topology: t_h per extra link, link sharing when `contention`), the chosen one marked."""
    from . import plotting
    from .chapters import topology as topology_chapter
    import matplotlib.pyplot as plt
    from .models import collectives as mc

    G, place = _collective_parameters(op, algorithm, P, n, lam, b, t_h, topology, placement)
    P = int(P)
    segments = mc.optimal_segments(P, n, lam, b) if algorithm == "pipeline" else None
    steps = mc.schedule(op, algorithm, P, segments)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.3),
                                       gridspec_kw=dict(width_ratios=[1.7, 1]))
    shown = steps if len(steps) <= 12 else steps[:12]
    topology_chapter.draw_topology(G, shown, ax=ax, placement=place,
                        title=f"{op} {algorithm}, P = {P}, by {placement}"
                        + (f" (first 12 of {len(steps)} steps)" if len(steps) > 12 else ""))
    names, times = [], []
    for alg in mc.ALGORITHMS[op]:
        k = mc.optimal_segments(P, n, lam, b) if alg == "pipeline" else None
        t = mc.predict(op, alg, P, n, lam, b, segments=k, topology=G, placement=place,
                       t_h=t_h, contention=contention)
        names.append(alg + (f" (k={k})" if k else ""))
        times.append(float(t))
    colors = ["C3" if a == algorithm else "0.6" for a in mc.ALGORITHMS[op]]
    bx.barh(names[::-1], times[::-1], color=colors[::-1])
    for y, t in enumerate(times[::-1]):
        bx.text(t, y, f" {t:,.1f}", va="center", fontsize=7)
    bx.set_xlabel("predicted time per call (µs, model)")
    bx.set_title(f"n = {plotting.size_label(n)}B, λ = {lam:g} µs, b = {b:,.0f} MB/s"
                 + (f", t_h = {t_h:g} µs" if t_h else "") + (", contention" if contention else ""),
                 fontsize=9)
    bx.tick_params(labelsize=8)
    bx.set_xlim(0, max(times) * 1.3 if max(times) > 0 else 1)
    fig.tight_layout()
    return fig


# end of the collectives part

# --- jacobi --------------------------------------------------------------------------------



def jacobi_presets(seed) -> dict:
    """Placements from the jacobi_seed table: {label: (T_l µs, B MB/s, T_s s at L = 1200)},
    with B = 2 x the report's B/2, its full-duplex assumption."""
    presets, ts = {}, {}
    for _, r in seed[seed["quantity"] == "T_s"].iterrows():
        ts[r["machine"]] = float(r["value"])
    rows = seed[seed["quantity"].isin(["T_l", "B/2"])]
    for conf, g in rows.groupby("configuration", sort=False):
        q = dict(zip(g["quantity"], g["value"]))
        machine = g["machine"].iloc[0]
        if "T_l" in q and "B/2" in q and machine in ts:
            presets[f"ORFEO {conf}"] = (float(q["T_l"]), 2.0 * float(q["B/2"]), ts[machine])
    return presets


def jacobi_figure(L: int, N: int, decomposition: int, lambda_us: float, bandwidth_MBps: float,
                  T_s: float, measured=(), scaling: str = "weak", N_max: int = 48,
                  periodic: bool = False, title=None):
    """Predicted MLUP/s against N (1..N_max) for the given parameters, the selected N marked,
    over measured series [(label, N, mlups)]; a second panel shows the communication share."""
    import matplotlib.pyplot as plt
    import numpy as np

    from .chapters import jacobi as jacobi_chapter
    import matplotlib.pyplot as plt
    from .models import jacobi as jm

    L, N, N_max = int(positive("L", L)), int(positive("N", N)), int(positive("N up to", N_max))
    if scaling not in ("weak", "strong"):
        raise ValueError(f"scaling must be 'weak' or 'strong', not {scaling!r}")
    if decomposition not in (1, 2, 3):
        raise ValueError(f"decomposition must be 1, 2 or 3 dimensions, not {decomposition!r}")
    positive("T_s (s)", T_s)
    positive("B (MB/s)", bandwidth_MBps)
    if not (lambda_us == 0 or positive("λ (µs)", lambda_us)):
        raise ValueError("λ must be >= 0")
    N_max = max(N_max, N)

    def predict(n):
        grid = jm.dims_create(n, decomposition)
        if scaling == "weak":
            m = jm.JacobiModel(L, n, T_s, bandwidth_MBps, lambda_us, decomposition, periodic)
            return m.mlups, m.comm_share, grid
        if any(p > L for p in grid):
            return float("nan"), float("nan"), grid
        p = jm.strong_mlups(L, grid, T_s, bandwidth_MBps, lambda_us, periodic)
        t_comp = T_s * np.prod([jm.local_extent(L, q) for q in grid]) / float(L) ** 3
        return p, 1 - t_comp / (1e-6 * float(L) ** 3 / p), grid

    Ns = np.arange(1, N_max + 1)
    pred = [predict(int(n)) for n in Ns]
    P = np.array([p for p, _, _ in pred])
    share = np.array([s for _, s, _ in pred])
    p1 = 1e-6 * float(L) ** 3 / T_s
    pN, sN, gN = predict(N)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.0), gridspec_kw={"width_ratios": [3, 2]})
    jacobi_chapter.plot_jacobi_scaling(
        measured, [(f"P(L,N), {scaling} scaling, {decomposition}-D (model)", Ns, P),
                   ("N x P(L,1), no communication (model)", Ns, Ns * p1)],
        ax=ax, highlight=(N, pN))
    ax.set_title(title or f"L = {L}, T_s = {T_s:.3g} s, λ = {lambda_us:.3g} µs, B = "
                 f"{bandwidth_MBps:,.0f} MB/s", fontsize=9)
    ax2.semilogy(Ns[1:], share[1:], color="C1", lw=1.6, label="communication share (model)")
    ax2.plot([N], [max(sN, 1e-12)], marker="*", ms=12, color="C3", lw=0)
    ax2.set_xlabel("processes N")
    ax2.set_ylabel("T_c / (T_s + T_c)")
    ax2.grid(True, which="both", alpha=0.3)
    eff = pN / (N * p1)
    ax2.set_title(f"N = {N} ({'x'.join(map(str, gN))}): {pN:,.0f} MLUP/s, efficiency "
                  f"{eff:.2%}, comm {sN:.2%}", fontsize=8.5)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


