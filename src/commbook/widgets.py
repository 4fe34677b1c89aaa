"""ipywidgets explorers. Each explorer has a static default figure (drawn by the notebook in an
ordinary cell, so the rendered book shows it) and refuses impossible values: sliders are bounded
and text boxes are validated before anything is drawn. One section per chapter."""
from __future__ import annotations


def positive(name: str, value: float) -> float:
    """Refuse a non-positive or non-finite parameter with a clear message."""
    import math
    if value is None or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, not {value!r}")
    return float(value)


def _show(fig):
    """Draw a figure into the current ipywidgets Output and free it (plt.show(fig) is not an
    API: outside the inline backend it raises)."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    display(fig)
    plt.close(fig)


# --- ping-pong -----------------------------------------------------------------------------

LAMBDA_RANGE_US = (0.01, 1000.0)      # from shared memory to slow Ethernet
BANDWIDTH_RANGE_MBPS = (1.0, 1e6)     # 1 MB/s .. 1 TB/s


def pingpong_presets(table) -> dict:
    """{label: (λ µs, b MB/s)} from a summary table with latency_us and a bandwidth column."""
    out = {}
    for row in table.to_dict("records"):
        b = row.get("bandwidth_fit_MBps")
        if b is None or b != b:  # NaN: fall back to the plateau
            b = row.get("bandwidth_asymptotic_MBps")
        label = f"{row['machine']} by {row['mapping']}: {row['transport']} ({row['mpi_library']})"
        out[label] = (float(row["latency_us"]), float(b))
    return out


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


def hockney_explorer(measured=None, presets: dict | None = None):
    """Sliders for λ and b (bounded, so impossible values cannot be set) and a preset menu."""
    import ipywidgets as w

    presets = dict(presets or {})
    lam = w.FloatLogSlider(value=1.0, base=10, min=-2, max=3, step=0.01, description="λ (µs)",
                           readout_format=".3g", continuous_update=False)
    bw = w.FloatLogSlider(value=5000.0, base=10, min=0, max=6, step=0.01, description="b (MB/s)",
                          readout_format=",.0f", continuous_update=False)
    choice = w.Dropdown(options=["(sliders)"] + list(presets), description="preset",
                        layout=w.Layout(width="95%"))
    out = w.Output()

    def apply_preset(change):
        if change["new"] in presets:
            lam.value, bw.value = presets[change["new"]]

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            _show(hockney_figure(lam.value, bw.value, measured,
                                 label=choice.value if choice.value in presets else ""))

    choice.observe(apply_preset, names="value")
    lam.observe(redraw, names="value")
    bw.observe(redraw, names="value")
    redraw()
    return w.VBox([choice, w.HBox([lam, bw]), out])

# --- ring ----------------------------------------------------------------------------------

RING_CLASSES = ("core", "socket", "node")

RING_P_MAX = 1024
RING_SIZES = [4 * 2 ** k for k in range(25)]  # 4 B .. 64 MiB


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


def ring_explorer(measured=(), presets: dict | None = None):
    """Sliders for λ and b of each link class, the node layout, P and n, over measured rings.
    presets: {label: {"lambda_us": {...}, "bandwidth_MBps": {...}, "cores_per_socket": .,
    "sockets_per_node": .}}. Every slider is bounded, so no impossible value can be set."""
    import ipywidgets as w

    presets = dict(presets or {})
    style = {"description_width": "90px"}
    lam = {c: w.FloatLogSlider(value={"core": 0.2, "socket": 0.4, "node": 1.0}[c], base=10, min=-2,
                               max=3, step=0.01, description=f"λ {c} (µs)", readout_format=".3g",
                               continuous_update=False, style=style) for c in RING_CLASSES}
    bw = {c: w.FloatLogSlider(value={"core": 6000, "socket": 5000, "node": 12000}[c], base=10,
                              min=0, max=6, step=0.01, description=f"b {c} (MB/s)",
                              readout_format=",.0f", continuous_update=False, style=style)
          for c in RING_CLASSES}
    cps = w.IntSlider(value=12, min=1, max=128, description="cores/socket", continuous_update=False,
                      style=style)
    spn = w.IntSlider(value=2, min=1, max=8, description="sockets/node", continuous_update=False,
                      style=style)
    pmax = w.IntSlider(value=48, min=2, max=256, description="P up to", continuous_update=False,
                       style=style)
    size = w.SelectionSlider(options=[(f"{s:,} B", s) for s in RING_SIZES], value=4,
                             description="message n", continuous_update=False, style=style)
    m = w.FloatSlider(value=2.0, min=1.0, max=2.0, step=0.1, description="messages/step",
                      continuous_update=False, style=style)
    choice = w.Dropdown(options=["(sliders)"] + list(presets), description="preset",
                        layout=w.Layout(width="95%"))
    out = w.Output()

    def apply_preset(change):
        p = presets.get(change["new"])
        if p:
            for c in RING_CLASSES:
                lam[c].value = p["lambda_us"][c]
                bw[c].value = p["bandwidth_MBps"][c]
            cps.value, spn.value = p["cores_per_socket"], p["sockets_per_node"]

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            try:
                fig = ring_figure({c: lam[c].value for c in RING_CLASSES},
                                  {c: bw[c].value for c in RING_CLASSES}, cps.value, spn.value,
                                  pmax.value, size.value, m.value, measured)
            except ValueError as e:
                print(f"cannot draw: {e}")
                return
            _show(fig)

    choice.observe(apply_preset, names="value")
    for s in [*lam.values(), *bw.values(), cps, spn, pmax, size, m]:
        s.observe(redraw, names="value")
    redraw()
    return w.VBox([choice, w.HBox([w.VBox(list(lam.values())), w.VBox(list(bw.values()))]),
                   w.HBox([w.VBox([cps, spn]), w.VBox([pmax, size, m])]), out])


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


def matrix_explorer(measured: dict | None = None, presets: dict | None = None,
                    shape: str = "2400x100x100", P: int = 24, add_rate: float = 500.0):
    """Matrix shape (validated text), P, grid (only grids that fit), λ, b, add rate and the
    scatter algorithm -> predicted phases and speedup. presets: {label: (λ µs, b MB/s)}."""
    import ipywidgets as w

    from .models import matrix as M

    presets = dict(presets or {})
    style = {"description_width": "90px"}
    shape_box = w.Text(value=shape, description="matrix", continuous_update=False, style=style)
    procs = w.IntSlider(value=P, min=1, max=256, description="processes P", continuous_update=False,
                        style=style)
    grid = w.Dropdown(description="grid", style=style)
    lam = w.FloatLogSlider(value=0.4, base=10, min=-2, max=3, step=0.01, description="λ (µs)",
                           readout_format=".3g", continuous_update=False, style=style)
    bw = w.FloatLogSlider(value=5000, base=10, min=0, max=6, step=0.01, description="b (MB/s)",
                          readout_format=",.0f", continuous_update=False, style=style)
    rate = w.FloatLogSlider(value=add_rate, base=10, min=0, max=5, step=0.01,
                            description="add (elem/µs)", readout_format=",.0f",
                            continuous_update=False, style=style)
    alg = w.ToggleButtons(options=list(M.ALGORITHMS), description="scatter", style=style)
    choice = w.Dropdown(options=["(sliders)"] + list(presets), description="link preset",
                        layout=w.Layout(width="95%"), style=style)
    msg = w.HTML()
    out = w.Output()
    busy = [False]

    def refill(*_):
        try:
            s = parse_shape(shape_box.value)
        except ValueError as e:
            msg.value = f"<b>{e}</b>"
            return False
        gs = [M.grid_name(g) for g in M.grids(procs.value) if all(a <= b for a, b in zip(g, s))]
        if not gs:
            msg.value = f"<b>no grid of {procs.value} processes fits {M.grid_name(s)}</b>"
            return False
        msg.value = ""
        busy[0] = True
        keep = grid.value if grid.value in gs else M.grid_name(M.best_grid(s, procs.value))
        grid.options = gs
        grid.value = keep
        busy[0] = False
        return True

    def redraw(*_):
        if busy[0]:
            return
        with out:
            out.clear_output(wait=True)
            if not refill():
                return
            try:
                fig = matrix_figure(shape_box.value, procs.value, grid.value, lam.value, bw.value,
                                    rate.value, alg.value,
                                    measured if procs.value == P and shape_box.value == shape else None)
            except ValueError as e:
                print(f"cannot draw: {e}")
                return
            _show(fig)

    def apply_preset(change):
        if change["new"] in presets:
            lam.value, bw.value = presets[change["new"]]

    choice.observe(apply_preset, names="value")
    for s in (shape_box, procs, grid, lam, bw, rate, alg):
        s.observe(redraw, names="value")
    refill()
    redraw()
    return w.VBox([choice, w.HBox([w.VBox([shape_box, procs, grid]), w.VBox([lam, bw, rate])]),
                   alg, msg, out])

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


def topology_explorer():
    """Pick a topology, its size (from valid sizes only) and an algorithm to overlay."""
    import ipywidgets as w
    import matplotlib.pyplot as plt
    from IPython.display import display

    kind = w.Dropdown(options=list(TOPOLOGY_SIZES), value="torus", description="topology")
    size = w.Dropdown(options=TOPOLOGY_SIZES["torus"], value="16", description="p")
    overlay = w.Dropdown(options=list(TOPOLOGY_OVERLAYS), value="(none)", description="messages",
                         layout=w.Layout(width="45%"))
    out = w.Output()

    def new_kind(change):
        size.options = TOPOLOGY_SIZES[change["new"]]
        size.value = size.options[min(1, len(size.options) - 1)]

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            fig = topology_figure(kind.value, size.value, overlay.value)
            display(fig)
            plt.close(fig)

    kind.observe(new_kind, names="value")
    for c in (kind, size, overlay):
        c.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox([kind, size, overlay]), out])

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


def collective_explorer():
    """Operation, algorithm, P, n, λ, b, t_h, topology and placement -> collective_figure."""
    import ipywidgets as w
    import matplotlib.pyplot as plt
    from IPython.display import display

    from . import topology as topo
    from .models import collectives as mc

    op = w.Dropdown(options=["bcast", "gather", "allreduce", "reduce", "scatter"], value="bcast",
                    description="operation")
    alg = w.Dropdown(options=list(mc.ALGORITHMS["bcast"]), value="binomial", description="algorithm")
    topology = w.Dropdown(options=list(COLLECTIVE_TOPOLOGIES.items()), value="cluster:2x2x4",
                          description="topology", layout=w.Layout(width="60%"))
    placement = w.Dropdown(options=list(topo.MAP_BY), value="core", description="map by")
    P = w.IntSlider(value=16, min=2, max=16, description="P")
    n = w.IntSlider(value=16, min=0, max=26, description="log2 n", readout=True)
    lam = w.FloatLogSlider(value=1.0, base=10, min=-2, max=2, description="λ (µs)")
    b = w.FloatLogSlider(value=5000, base=10, min=2, max=5, description="b (MB/s)")
    t_h = w.FloatSlider(value=0.0, min=0.0, max=5.0, step=0.05, description="t_h (µs)")
    contention = w.Checkbox(value=True, description="link sharing")
    msg = w.HTML()
    out = w.Output()

    def new_op(change):
        alg.options = list(mc.ALGORITHMS[change["new"]])
        alg.value = "binomial" if "binomial" in alg.options else alg.options[0]

    def new_topology(change):
        G = topo.parse_topology(change["new"])
        procs = len(topo.processors(G))
        P.max = procs
        P.value = min(P.value, procs)
        placement.options = list(topo.MAP_BY) if G.graph["kind"] == "cluster" else ["core"]

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            try:
                fig = collective_figure(op.value, alg.value, P.value, float(2 ** n.value) if n.value else 0.0,
                                        lam.value, b.value, t_h.value, topology.value,
                                        placement.value, contention.value)
            except ValueError as e:
                msg.value = f"<span style='color:#b00'>{e}</span>"
                return
            msg.value = ""
            display(fig)
            plt.close(fig)

    op.observe(new_op, names="value")
    topology.observe(new_topology, names="value")
    for c in (op, alg, topology, placement, P, n, lam, b, t_h, contention):
        c.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox([op, alg, placement]), topology, w.HBox([P, n]), w.HBox([lam, b]),
                   w.HBox([t_h, contention]), msg, out])

# end of the collectives part

# --- jacobi --------------------------------------------------------------------------------

JACOBI_DECOMPOSITIONS = {"1-D (slabs)": 1, "2-D (pencils)": 2, "3-D (cubes)": 3}


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


def jacobi_explorer(measured=(), presets: dict | None = None, L: int = 1200, T_s: float = 15.24,
                    N_max: int = 48):
    """Sliders for L, N, decomposition, placement (presets set λ, B, T_s), λ, B, T_s and the
    scaling mode, over measured series. Changing L rescales T_s by (L_new / L_old)^3 (same
    speed per point). Every slider is bounded, so no impossible value can be set."""
    import ipywidgets as w

    presets = dict(presets or {})
    style = {"description_width": "110px"}
    Ls = w.IntSlider(value=L, min=8, max=4000, step=8, description="L", continuous_update=False,
                     style=style)
    Ns = w.IntSlider(value=min(24, N_max), min=1, max=max(N_max, 256), description="N",
                     continuous_update=False, style=style)
    dec = w.Dropdown(options=list(JACOBI_DECOMPOSITIONS.items()), value=3,
                     description="decomposition", style=style)
    scaling = w.ToggleButtons(options=["weak", "strong"], value="weak", description="scaling",
                              style=style)
    lam = w.FloatLogSlider(value=1.0, base=10, min=-2, max=3, step=0.01, description="λ = T_l (µs)",
                           readout_format=".3g", continuous_update=False, style=style)
    bw = w.FloatLogSlider(value=24000.0, base=10, min=1, max=6, step=0.01, description="B (MB/s)",
                          readout_format=",.0f", continuous_update=False, style=style)
    ts = w.FloatLogSlider(value=T_s, base=10, min=-6, max=4, step=0.01, description="T_s (s)",
                          readout_format=".3g", continuous_update=False, style=style)
    choice = w.Dropdown(options=["(sliders)"] + list(presets), description="placement",
                        style=style, layout=w.Layout(width="95%"))
    out = w.Output()
    state = {"L": L}

    def apply_preset(change):
        p = presets.get(change["new"])
        if p:
            lam.value, bw.value = p[0], p[1]
            ts.value = p[2] * (Ls.value / 1200) ** 3 if len(p) < 4 else p[2] * (Ls.value / p[3]) ** 3

    def rescale(change):
        ts.value = min(max(ts.value * (change["new"] / state["L"]) ** 3, 1e-6), 1e4)
        state["L"] = change["new"]

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            try:
                fig = jacobi_figure(Ls.value, Ns.value, dec.value, lam.value, bw.value, ts.value,
                                    measured, scaling.value, N_max=max(N_max, Ns.value))
            except ValueError as e:
                print(f"cannot draw: {e}")
                return
            _show(fig)

    choice.observe(apply_preset, names="value")
    Ls.observe(rescale, names="value")
    for s in (Ls, Ns, dec, scaling, lam, bw, ts):
        s.observe(redraw, names="value")
    redraw()
    return w.VBox([choice, w.HBox([w.VBox([Ls, Ns, dec, scaling]), w.VBox([lam, bw, ts])]), out])
